import LectorImaging
import LectorProtocol
import LectorSystem

/// One pixel format a capture node offers, with its sizes and frame rates, as the
/// VIDIOC_ENUM_* requests describe it.
public struct FormatOffer: Equatable, Sendable {
    /// The V4L2 fourcc code (kept raw: the node may offer formats Lector cannot read).
    public var fourcc: UInt32
    /// The driver's name for it ("YUYV 4:2:2").
    public var name: String
    /// V4L2_FMT_FLAG_COMPRESSED.
    public var compressed: Bool
    /// V4L2_FMT_FLAG_EMULATED: libv4l2 converts to it in software.
    public var emulated: Bool
    public var sizes: SizeOffers

    public init(fourcc: UInt32, name: String = "", compressed: Bool = false, emulated: Bool = false,
                sizes: SizeOffers = .unknown) {
        self.fourcc = fourcc
        self.name = name
        self.compressed = compressed
        self.emulated = emulated
        self.sizes = sizes
    }

    /// Builds an offer of a known format (tests, tables).
    public init(_ format: PixelFormat, emulated: Bool = false, sizes: SizeOffers = .unknown) {
        self.init(fourcc: format.rawValue, name: format.fourcc, compressed: format.isCompressed,
                  emulated: emulated, sizes: sizes)
    }

    /// The format as Lector reads it; nil when the recognizer cannot turn it into luma.
    public var pixelFormat: PixelFormat? { PixelFormat(rawValue: fourcc) }
}

/// The frame sizes of one format.
public enum SizeOffers: Equatable, Sendable {
    /// A list of sizes, each with its frame rates (UVC cameras).
    case discrete([SizeOffer])
    /// Any size in a range (VIDIOC_ENUM_FRAMESIZES stepwise or continuous).
    case stepwise(SizeRange)
    /// The driver does not enumerate sizes (HDMI inputs: the source decides).
    case unknown
}

/// One discrete frame size and the frame rates it can be captured at.
public struct SizeOffer: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Frames per second, fastest first; empty when the driver does not say.
    public var rates: [Double]

    public init(width: Int, height: Int, rates: [Double] = []) {
        self.width = width
        self.height = height
        self.rates = rates
    }

    /// Whether it can deliver `fps` (unknown rates are assumed to).
    func reaches(fps: Double?) -> Bool {
        guard let fps, let fastest = rates.first else { return true }
        return fastest >= fps * 0.99
    }
}

/// A range of frame sizes.
public struct SizeRange: Equatable, Sendable {
    public var minWidth: Int, maxWidth: Int, stepWidth: Int
    public var minHeight: Int, maxHeight: Int, stepHeight: Int

    public init(minWidth: Int, maxWidth: Int, stepWidth: Int = 1, minHeight: Int, maxHeight: Int, stepHeight: Int = 1) {
        self.minWidth = minWidth
        self.maxWidth = maxWidth
        self.stepWidth = max(stepWidth, 1)
        self.minHeight = minHeight
        self.maxHeight = maxHeight
        self.stepHeight = max(stepHeight, 1)
    }

    /// Whether the range holds exactly this size.
    func contains(width: Int, height: Int) -> Bool {
        (minWidth...maxWidth).contains(width) && (minHeight...maxHeight).contains(height)
            && (width - minWidth) % stepWidth == 0 && (height - minHeight) % stepHeight == 0
    }

    /// The size in the range nearest to the one asked.
    func nearest(width: Int, height: Int) -> (width: Int, height: Int) {
        func snap(_ value: Int, _ low: Int, _ high: Int, _ step: Int) -> Int {
            let clamped = min(max(value, low), high)
            return low + ((clamped - low) / step) * step
        }
        return (snap(width, minWidth, maxWidth, stepWidth), snap(height, minHeight, maxHeight, stepHeight))
    }
}
