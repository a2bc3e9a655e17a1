import LectorImaging
import LectorPipeline
import Testing

@Suite("The refresh of a still scene on a network camera")
struct StillSceneRefreshTests {
    /// A 96×64 page: light paper with dark strokes every few pixels, like lines of text.
    static func page() -> GrayImage {
        var pixels = [UInt8](repeating: 200, count: 96 * 64)
        for y in stride(from: 8, to: 56, by: 16) {
            for x in 8..<88 where x % 5 != 0 { for row in y..<(y + 6) { pixels[row * 96 + x] = 40 } }
        }
        return GrayImage(width: 96, height: 64, pixels: pixels)
    }

    /// `image` with `change` applied to each pixel (its index and value).
    static func changed(_ image: GrayImage, _ change: (Int, UInt8) -> Int) -> GrayImage {
        GrayImage(width: image.width, height: image.height,
                  pixels: image.pixels.enumerated().map { UInt8(clamping: change($0.offset, $0.element)) })
    }

    /// A "character" (8×8 pixels of paper at 40, 32) put in at `level`.
    static func character(_ index: Int, _ value: UInt8, to level: Int) -> Int {
        let (x, y) = (index % 96, index / 96)
        return (40..<48).contains(x) && (32..<40).contains(y) ? level : Int(value)
    }

    /// What happens to the page between the read and the refresh, and whether the page is then still the one read.
    enum Edit: String, CaseIterable, Sendable {
        case nothing = "the same pixels"
        case stackNoise = "noise of 1-2 levels a pixel (two refreshes of a noisy key-frame stack)"
        case character = "one character more"
        case faintCharacter = "a faint character more (30 levels)"
        case dimmed = "the light dimmed by 10 levels"
        case tooNoisy = "noise of 3 levels a pixel (a camera too noisy to trust the blocks)"

        var isSame: Bool { self == .nothing || self == .stackNoise }

        func apply(_ index: Int, _ value: UInt8) -> Int {
            switch self {
            case .nothing: Int(value)
            case .stackNoise: Int(value) + (index % 3 == 0 ? 2 : -1)
            case .character: StillSceneRefreshTests.character(index, value, to: 40)
            case .faintCharacter: StillSceneRefreshTests.character(index, value, to: 170)
            case .dimmed: Int(value) - 10
            case .tooNoisy: Int(value) + (index % 2 == 0 ? 3 : -3)
            }
        }
    }

    @Test("a stack's noise is the frame read; a changed character or light is not", arguments: Edit.allCases)
    func sameAsRead(_ edit: Edit) throws {
        let read = Self.page()
        let change = try #require(StillSceneRefresh.change(from: read, to: Self.changed(read, edit.apply)))
        #expect(StillSceneRefresh.isSame(change) == edit.isSame,
                "\(edit.rawValue): mean \(change.meanDifference), block \(change.largestBlockDifference)")
    }

    @Test("a slow change adds up against the frame last read until it is read")
    func slowChange() throws {
        var refresh = StillSceneRefresh()
        #expect(StillSceneRefresh.change(from: refresh.lastRead, to: Self.page()) == nil, "nothing read yet: read")
        refresh.remember(Self.page())
        // A digit fading in by 2 levels a refresh: each refresh alike the one before, not the frame read.
        var seen: [Bool] = []
        for step in 1...4 {
            let frame = Self.changed(Self.page()) { index, value in Self.character(index, value, to: 200 - 2 * step) }
            seen.append(StillSceneRefresh.isSame(try #require(StillSceneRefresh.change(from: refresh.lastRead, to: frame))))
        }
        #expect(seen == [true, true, false, false], "read at the third refresh (6 levels since the read): \(seen)")
        #expect(StillSceneRefresh.change(from: refresh.lastRead, to: GrayImage(width: 8, height: 8)) == nil, "another size: read")
    }
}
