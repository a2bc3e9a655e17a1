import LectorImaging

/// How large an image the text-line detector sees, per detection.
///
/// The detector's cost grows with its input: on a 1920×1440 document photo, 0.6 s of one
/// core at 960 px (longer side) against 1.0–1.1 s at 1280 px (measured 2026-12-02), for
/// 0.856 of the realworld document words against 0.942. On a machine where a detection
/// at the full size takes most of a frame's deadline (a third of a core: about 3.5 s
/// against the 3 s default), a new scene is first detected at ``quick`` so that its text
/// comes out within the first frames; once those lines are read, the scene is detected
/// again at ``full`` (``DetectorLayout``'s timed detection) for the small print. A machine
/// where the full size fits detects every scene at full size, as before.
///
/// Each detection's time, scaled by the network's input pixels, estimates what a
/// detection at full size takes now. Before the first one, a detection of a small blank
/// ``probe`` (a tenth of a full one's cost) tells whether this machine is one of those:
/// without it, the first scene on a fast machine was detected twice (quick, then full)
/// and its lines read twice (a document photo's camera cost 0.61–1.06× c55d146's CPU per
/// captured frame in 40 s with the probe's absence, 0.46–0.53× with it; 2026-12-03).
struct DetectionSize: Equatable, Sendable {
    /// The side the detector normally shrinks an image to (``DetectorParameters/maximumSide``).
    static let full = DetectorParameters().maximumSide
    /// A new scene's first detection on a machine too slow for ``full`` (measured at a
    /// third of a core on the 7 realworld document photos, 2026-12-02: half of the words
    /// after 3.0–4.3 s at 960, against 5.5–7.5 s detecting at 1280 and 2.2–9.2 s at 640:
    /// the two pages turned a quarter took 9.2 and 8.9 s there).
    static let quick = 960
    /// A detection at full size is too slow for a new scene when it is estimated to take
    /// more than this share of the frame's deadline (the rest is left to read lines).
    /// It was a half: at a sixth of a core a document photo estimated at 1,440 ms (the
    /// small probe's, below) was detected at full size in 1,705 ms, and its first TEXT
    /// came at the deadline with 11 of 24 lines (4.2 s from streaming; 2026-12-04). 0.4
    /// leaves margin for an estimate that runs a little low; a third of a core (the
    /// probe's estimates 1,110–1,140 ms, detections 0.9–1.0 s) still detects at full size.
    static let deadlineShare = 0.4
    /// What a detection at full size is taken to cost before one was timed: more than
    /// any machine lectord runs on should need (a third of a core: about 3.5 s), so that
    /// only a deadline far longer than a camera's (a file read with `--deadline-ms`)
    /// detects its first scene at full size.
    static let untimedFullMilliseconds = 10_000.0

    /// Milliseconds a detection at ``full`` is estimated to take (nil: none ran yet).
    private(set) var fullMilliseconds: Double?

    init(fullMilliseconds: Double? = nil) { self.fullMilliseconds = fullMilliseconds }

    /// The side to detect a `width` × `height` image at: ``quick`` for a new scene while
    /// a full-size detection is not known to fit in ``deadlineShare`` of `deadline` (and
    /// the image is larger than ``quick``), else ``full``; always ``full`` for a read
    /// without a deadline (a file read whole).
    /// - Parameters:
    ///   - newScene: the first detection of a live scene (not a still scene's again, not
    ///     a read without a scene, which detects every frame).
    ///   - deadline: the frame's deadline in milliseconds.
    func side(newScene: Bool, deadline: Int, width: Int, height: Int) -> Int {
        guard newScene, Self.inputPixels(side: Self.quick, width: width, height: height)
                < Self.inputPixels(side: Self.full, width: width, height: height) else { return Self.full }
        return (fullMilliseconds ?? Self.untimedFullMilliseconds) > Self.deadlineShare * Double(deadline) ? Self.quick : Self.full
    }

    /// Notes that a detection of a `width` × `height` image at `side` took `milliseconds`.
    mutating func record(milliseconds: Double, side: Int, width: Int, height: Int) {
        record(milliseconds: milliseconds, inputPixels: Self.inputPixels(side: side, width: width, height: height),
               width: width, height: height)
    }

    /// Notes that a detection of ``probe`` took `milliseconds`, for images of `width` × `height`.
    mutating func recordProbe(milliseconds: Double, width: Int, height: Int) {
        record(milliseconds: milliseconds, inputPixels: Self.inputPixels(side: Self.full, width: Self.probe.width, height: Self.probe.height),
               width: width, height: height)
    }

    /// Notes that the network took `milliseconds` for `inputPixels`, for images of `width` × `height`.
    private mutating func record(milliseconds: Double, inputPixels pixels: Int, width: Int, height: Int) {
        guard pixels > 0 else { return }
        fullMilliseconds = milliseconds * Double(Self.inputPixels(side: Self.full, width: width, height: height)) / Double(pixels)
    }

    /// Whether the first detection of a new scene of a `width` × `height` image is worth
    /// timing ``probe`` for: nothing was timed yet and it would be detected at ``quick``.
    func wantsProbe(deadline: Int, width: Int, height: Int) -> Bool {
        fullMilliseconds == nil && side(newScene: true, deadline: deadline, width: width, height: height) == Self.quick
    }

    /// A blank image whose detection times the network: 640 × 480 input pixels, a quarter
    /// of a 1920 × 1440 frame's at ``full``. Its time scaled up estimates high (the
    /// network's fixed costs weigh more on a smaller input; a wait for the network shared
    /// with the camera's other recognizers counts too). It was 320 × 240 (50–70 ms on the
    /// 2-core EPYC guest on OpenCV's DNN); on ONNX Runtime that is about 14 ms of CPU,
    /// less than a 17 % quota's share of one 100 ms period, so under a quota it timed 14
    /// or 96 ms by where the period fell (estimates of 210 or 1,440 ms for a detection
    /// that took 1.7–2.0 s; 2026-12-04): a probe spanning several periods averages that
    /// out, as a slow core's own does not need.
    static let probe = GrayImage(width: 640, height: 480, pixels: [UInt8](repeating: 200, count: 640 * 480))

    /// The network's input pixels for an image shrunk to `side` (each side a multiple of
    /// 32, as the detector rounds them; never enlarged).
    static func inputPixels(side: Int, width: Int, height: Int) -> Int {
        let ratio = min(1.0, Double(side) / Double(max(width, height, 1)))
        func round32(_ length: Int) -> Int { max(32, Int((Double(length) * ratio / 32).rounded()) * 32) }
        return round32(width) * round32(height)
    }
}
