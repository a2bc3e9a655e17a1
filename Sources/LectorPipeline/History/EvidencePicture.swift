import LectorImaging

extension EvidenceStore.Item {
    /// The frame as the camera saw it, upright: the colour kept for the MATCH, decoded
    /// and turned here on the writer's thread, or the gray upright image the recognizer
    /// read (a camera whose colour was not kept, or that cannot be decoded again). A gray
    /// camera's is gray.
    func uprightPicture() -> ColorImage {
        guard let color, let transform, let image = try? color.image().turned(transform),
              image.width == frame.width, image.height == frame.height
        else { return ColorImage(planes: [frame]) }
        return image
    }
}
