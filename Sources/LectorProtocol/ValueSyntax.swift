/// Parsers for values several commands and the config file share.
public enum ValueSyntax {
    /// `WxH`, e.g. `1280x720`.
    public static func size(_ text: String, maximumSide: Int) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...maximumSide).contains(width), (1...maximumSide).contains(height) else { return nil }
        return (width, height)
    }

    /// `x,y,w,h`: a box that can be configured (``PixelBox/configurationProblem``: no
    /// negative corner, no empty side, far edges within ``PixelBox/maximumEdge``).
    public static func box(_ text: String) -> PixelBox? {
        if case let .success(box) = checkedBox(text) { return box }
        return nil
    }

    /// `x,y,w,h`, or why it is not a box that can be configured (the words to show).
    public static func checkedBox(_ text: String) -> Result<PixelBox, BoxRefusal> {
        let parts = text.split(separator: ",").map { Int(String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let width = parts[2], let height = parts[3] else {
            return .failure(BoxRefusal(reason: "must be X,Y,W,H in upright pixels (whole numbers)"))
        }
        let box = PixelBox(x: x, y: y, width: width, height: height)
        if let problem = box.configurationProblem { return .failure(BoxRefusal(reason: problem)) }
        return .success(box)
    }

    /// Why a text is not a box that can be configured.
    public struct BoxRefusal: Error, Equatable, Sendable {
        public var reason: String
    }

    /// `0|90|180|270`.
    public static func rotation(_ text: String) -> Int? {
        guard let degrees = Int(text), [0, 90, 180, 270].contains(degrees) else { return nil }
        return degrees
    }
}
