import LectorProtocol

extension TextWord {
    /// The word and its symbols moved by a shift of the scene.
    func moved(dx: Int, dy: Int) -> TextWord {
        guard dx != 0 || dy != 0 else { return self }
        var moved = self
        moved.box = box.offset(dx: dx, dy: dy)
        moved.symbols = symbols.map { symbol in
            var symbol = symbol
            symbol.box = symbol.box.offset(dx: dx, dy: dy)
            return symbol
        }
        return moved
    }
}
