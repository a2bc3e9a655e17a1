/// `{"x":…,"y":…,"width":…,"height":…}`
public func boxJSON(_ box: PixelBox) -> JSONValue {
    .object([("x", .int(box.x)), ("y", .int(box.y)), ("width", .int(box.width)), ("height", .int(box.height))])
}

/// `{"exif":6,"name":"right"}`
public func orientationJSON(_ orientation: ImageOrientation) -> JSONValue {
    .object([("exif", .int(orientation.exif)), ("name", .string(orientation.name))])
}

