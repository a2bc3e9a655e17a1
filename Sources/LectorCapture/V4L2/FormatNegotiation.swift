import LectorImaging
import LectorProtocol
import LectorSystem

/// Chooses what to capture from what a node offers: a pure function, so every rule is
/// tested on tables of enumerated formats without a device.
///
/// The rules, in order:
/// 1. `--format` decides the format when given (it must be offered).
/// 2. Otherwise prefer native raw formats whose luma is cheapest (GREY, then the planar
///    YUV formats, then packed YUV, then RGB) among those that reach the asked size and
///    frame rate; then MJPEG/JPEG when no raw format reaches them (a USB camera's
///    bandwidth limits raw formats to small sizes or low rates); then formats libv4l2
///    converts to (``FormatOffer/emulated``); then the cheapest format even if it falls
///    short of the size or rate. Formats the recognizer cannot read are never chosen.
/// 3. The size is `--size` when offered, else the nearest offered. Without `--size`:
///    of discrete sizes, the largest not above ``defaultSize`` (recognition time grows
///    with pixels); of a range (a scaler) or unlisted sizes, the driver's current size.
/// 4. The frame rate is `--fps` when given (the fastest rate is kept otherwise).
public enum FormatNegotiation {
    /// The size asked for when `--size` is not given: text at camera distances reads
    /// well at 720p, and recognition time grows with the pixel count.
    public static let defaultSize = (width: 1280, height: 720)

    /// What to ask the driver for.
    public struct Choice: Equatable, Sendable {
        public var format: PixelFormat
        /// Nil when the driver does not enumerate sizes: keep the current one (or `--size`).
        public var width: Int?
        public var height: Int?
        /// Nil: leave the driver's rate.
        public var fps: Double?
        /// Whether the choice reaches the asked size and rate.
        public var reachesRequest: Bool
        /// Whether only libv4l2 can deliver it.
        public var needsLibV4L2: Bool

        public init(format: PixelFormat, width: Int?, height: Int?, fps: Double?, reachesRequest: Bool = true,
                    needsLibV4L2: Bool = false) {
            self.format = format
            self.width = width
            self.height = height
            self.fps = fps
            self.reachesRequest = reachesRequest
            self.needsLibV4L2 = needsLibV4L2
        }
    }

    /// Why nothing can be captured.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// `--format` names a format the node does not offer.
        case formatNotOffered(asked: PixelFormat, offered: [String])
        /// The node offers only formats Lector cannot read.
        case noReadableFormat(offered: [String])

        public var description: String {
            switch self {
            case let .formatNotOffered(asked, offered):
                "the camera does not offer --format \(asked.fourcc) (it offers \(offered.isEmpty ? "nothing" : offered.joined(separator: ", ")))"
            case let .noReadableFormat(offered):
                "the camera offers no format Lector can read (\(offered.joined(separator: ", "))); try --io libv4l2"
            }
        }
    }

    /// Whether a format the recognizer handles natively exists among `offers` without
    /// libv4l2's conversion: `--io auto` then uses the direct path.
    public static func hasNativeFormat(_ offers: [FormatOffer]) -> Bool {
        offers.contains { $0.pixelFormat != nil && !$0.emulated }
    }

    /// Chooses format, size and rate.
    /// - Parameters:
    ///   - offers: what the node enumerates.
    ///   - format: `--format`; size: `--size`; fps: `--fps`.
    public static func choose(from offers: [FormatOffer], format: PixelFormat? = nil,
                              size: (width: Int, height: Int)? = nil, fps: Double? = nil) throws(Failure) -> Choice {
        let names = offers.map { PixelFormat.fourccString($0.fourcc) + ($0.emulated ? " (libv4l2)" : "") }
        if let format {
            // A native offer beats an emulated one of the same format.
            let matching = offers.filter { $0.fourcc == format.rawValue }.sorted { !$0.emulated && $1.emulated }
            guard let offer = matching.first else { throw .formatNotOffered(asked: format, offered: names) }
            return fit(offer, format: format, size: size, fps: fps)
        }
        let readable = offers.compactMap { offer in offer.pixelFormat.map { (offer, $0) } }
        guard !readable.isEmpty else { throw .noReadableFormat(offered: names) }
        let fits = readable.map { offer, format in (offer, format, fit(offer, format: format, size: size, fps: fps)) }

        /// Lower ranks win; ties go to the cheaper luma, then to the order the driver listed.
        func rank(_ offer: FormatOffer, _ format: PixelFormat, _ choice: Choice) -> Int {
            let tier: Int
            switch (choice.reachesRequest, format.isCompressed, offer.emulated) {
            case (true, false, false): tier = 0   // native raw
            case (true, true, false): tier = 1    // native MJPEG/JPEG
            case (true, _, true): tier = 2        // libv4l2 conversion
            case (false, _, false): tier = 3      // falls short, native
            case (false, _, true): tier = 4
            }
            return tier * 100 + format.lumaCost
        }
        // enumerated() keeps the sort stable on the driver's order.
        let best = fits.enumerated().min { a, b in
            let ra = rank(a.element.0, a.element.1, a.element.2), rb = rank(b.element.0, b.element.1, b.element.2)
            return ra != rb ? ra < rb : a.offset < b.offset
        }
        // `readable` is not empty, so neither is `fits`.
        return best!.element.2
    }

    /// The best size and rate of one offer for the request.
    static func fit(_ offer: FormatOffer, format: PixelFormat, size: (width: Int, height: Int)?, fps: Double?) -> Choice {
        var choice = Choice(format: format, width: size?.width, height: size?.height, fps: fps,
                            reachesRequest: true, needsLibV4L2: offer.emulated)
        switch offer.sizes {
        case .unknown:
            break
        case let .stepwise(range):
            // A range means a scaler (or an HDMI receiver): without --size, keep the size
            // the driver has, which is the source's own; never upscale to a default.
            guard let size else { break }
            let nearest = range.nearest(width: size.width, height: size.height)
            choice.width = nearest.width
            choice.height = nearest.height
            if !range.contains(width: size.width, height: size.height) { choice.reachesRequest = false }
        case let .discrete(sizes):
            guard !sizes.isEmpty else { break }
            // `sizes` is not empty: the min/max force unwraps below cannot fail.
            let picked: SizeOffer
            if let size {
                let exact = sizes.first { $0.width == size.width && $0.height == size.height }
                picked = exact ?? sizes.min { distance($0, to: size) < distance($1, to: size) }!
                if exact == nil { choice.reachesRequest = false }
            } else {
                // The largest size not above the default that reaches the rate; else the smallest.
                let area = defaultSize.width * defaultSize.height
                let candidates = sizes.filter { $0.width * $0.height <= area && $0.reaches(fps: fps) }
                picked = candidates.max { $0.width * $0.height < $1.width * $1.height }
                    ?? sizes.min { $0.width * $0.height < $1.width * $1.height }!
            }
            choice.width = picked.width
            choice.height = picked.height
            if !picked.reaches(fps: fps) { choice.reachesRequest = false }
        }
        return choice
    }

    private static func distance(_ offer: SizeOffer, to size: (width: Int, height: Int)) -> Int {
        abs(offer.width * offer.height - size.width * size.height) + abs(offer.width - size.width)
    }
}
