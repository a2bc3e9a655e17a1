/// `{"x":…,"y":…,"width":…,"height":…}`
public func boxJSON(_ box: PixelBox) -> JSONValue {
    .object([("x", .int(box.x)), ("y", .int(box.y)), ("width", .int(box.width)), ("height", .int(box.height))])
}

/// `{"exif":6,"name":"right"}`, with `"auto":true` when the quarter turn was found from
/// the text (`rotation auto`, proto_minor 6; absent means false).
public func orientationJSON(_ orientation: ImageOrientation, automatic: Bool = false) -> JSONValue {
    var members: [(String, JSONValue)] = [("exif", .int(orientation.exif)), ("name", .string(orientation.name))]
    if automatic { members.append(("auto", .bool(true))) }
    return .object(members)
}

