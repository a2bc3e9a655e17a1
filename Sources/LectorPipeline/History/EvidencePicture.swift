import LectorImaging
import Synchronization

/// The picture behind one frame's accepted MATCHes: the frame as the camera saw it,
/// upright, made once on the writer's thread for all the MATCHes of the frame (their
/// crops are cut from it), from the colour kept for them or else the gray upright image
/// the recognizer read (a camera whose colour was not kept, or that cannot be decoded
/// again). A gray camera's is gray.
final class EvidencePicture: Sendable {
    private let gray: GrayImage
    private let color: ColorSource?
    private let transform: OrientationTransform?
    private let made = Mutex<ColorImage?>(nil)

    /// - Parameters:
    ///   - gray: the upright gray image the recognizer read (the MATCHes' boxes are in it).
    ///   - color: the frame as captured, copied when its first MATCH was kept.
    ///   - transform: how the captured frame turns upright.
    init(gray: GrayImage, color: ColorSource?, transform: OrientationTransform?) {
        self.gray = gray
        self.color = color
        self.transform = transform
    }

    /// The upright picture (decoded and turned by the first caller).
    var upright: ColorImage {
        made.withLock { made in
            if let made { return made }
            var picture = ColorImage(planes: [gray])
            if let color, let transform, let image = try? color.image().turned(transform),
               image.width == gray.width, image.height == gray.height {
                picture = image
            }
            made = picture
            return picture
        }
    }
}
