import Foundation
import LectorEngine
import LectorProtocol

/// Builds blocks from read lines, as Tesseract's layout would: segments of one line
/// (the detector splits a line at wide gaps) are joined, and lines that follow each
/// other closely, overlapping along the text, form a block.
///
/// Everything is compared in the page's own frame (along and across the text, the
/// lines' mean reading direction), so a page turned a quarter groups as an upright one.
enum LineBlocks {
    /// One read line with its quad (the detector's, in upright pixels).
    struct ReadLine {
        var line: TextLine
        var quad: LineQuad
    }

    /// A line's extent in the page's frame.
    private struct Extent {
        var start: Double, end: Double, top: Double, bottom: Double
        var thickness: Double { bottom - top }
    }

    static func blocks(of lines: [ReadLine]) -> [TextBlock] {
        guard !lines.isEmpty else { return [] }
        // The page's reading direction: the length-weighted mean of the lines' (doubled
        // angles are not needed: every quad reads in its chosen direction).
        var sum = ImagePoint(x: 0, y: 0)
        for read in lines { sum = sum + (read.quad.topRight - read.quad.topLeft) }
        let norm = max((sum.x * sum.x + sum.y * sum.y).squareRoot(), 1e-9)
        let along = ImagePoint(x: sum.x / norm, y: sum.y / norm), across = ImagePoint(x: -along.y, y: along.x)
        func extent(_ quad: LineQuad) -> Extent {
            let corners = [quad.topLeft, quad.topRight, quad.bottomRight, quad.bottomLeft]
            let a = corners.map { $0.dot(along) }, c = corners.map { $0.dot(across) }
            return Extent(start: a.min() ?? 0, end: a.max() ?? 0, top: c.min() ?? 0, bottom: c.max() ?? 0)
        }

        // 1. Segments of one line: side by side, overlapping across, about as thick.
        // A segment's words stay in the order its engine read them: a word's box can be
        // wrong where its text is right (Tesseract boxed 营业 of 营业时间上午九点 across the
        // whole line; sorted by their centres, the words read 时间营业上午九点).
        var rows: [(extent: Extent, words: [TextWord], quad: LineQuad, engines: [String])] = []
        for read in lines.sorted(by: { extent($0.quad).start < extent($1.quad).start }) {
            let e = extent(read.quad)
            let words = read.line.words
            if let index = rows.firstIndex(where: { row in
                let overlap = min(row.extent.bottom, e.bottom) - max(row.extent.top, e.top)
                let thin = min(row.extent.thickness, e.thickness), thick = max(row.extent.thickness, e.thickness)
                let gap = e.start - row.extent.end
                return overlap > 0.6 * thin && thick < 1.6 * thin && gap < 1.5 * thick && gap > -0.5 * thin
            }) {
                rows[index].extent = Extent(start: min(rows[index].extent.start, e.start), end: max(rows[index].extent.end, e.end),
                                            top: min(rows[index].extent.top, e.top), bottom: max(rows[index].extent.bottom, e.bottom))
                rows[index].words += words
                rows[index].engines += read.line.engine.map { Array(repeating: $0, count: words.count) } ?? []
            } else {
                rows.append((e, words, read.quad, read.line.engine.map { Array(repeating: $0, count: words.count) } ?? []))
            }
        }
        let textLines: [(extent: Extent, line: TextLine)] = rows.map { row in
            (row.extent, line(row.words, engine: TreeBuilder.mostCommon(row.engines)))
        }

        // 2. Blocks: lines that follow closely across the text and overlap along it.
        var parent = Array(textLines.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for i in textLines.indices {
            for j in textLines.indices where j > i {
                let a = textLines[i].extent, b = textLines[j].extent
                let thin = min(a.thickness, b.thickness), thick = max(a.thickness, b.thickness)
                let gap = max(a.top, b.top) - min(a.bottom, b.bottom)
                let overlap = min(a.end, b.end) - max(a.start, b.start)
                if gap < 0.8 * thin && overlap > 0 && thick < 2 * thin { parent[root(j)] = root(i) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in textLines.indices { groups[root(i), default: []].append(i) }
        let ordered = groups.values.map { members in
            members.sorted { textLines[$0].extent.top < textLines[$1].extent.top }
        }.sorted { first, second in
            let a = textLines[first[0]].extent, b = textLines[second[0]].extent
            // Top to bottom; blocks side by side (overlapping across), left to right.
            let overlap = min(a.bottom, b.bottom) - max(a.top, b.top)
            return overlap > 0 ? a.start < b.start : a.top < b.top
        }
        return ordered.map { members in
            let blockLines = members.map { textLines[$0].line }
            let box = blockLines.dropFirst().reduce(blockLines[0].box) { $0.union($1.box) }
            let words = blockLines.flatMap(\.words)
            return TextBlock(box: box, confidence: TreeBuilder.mean(words.map(\.confidence)), language: TreeBuilder.mostCommon(words.compactMap(\.language)),
                             lines: blockLines)
        }
    }

    /// A line of `words`; `engine`: the one that read most of them.
    private static func line(_ words: [TextWord], engine: String?) -> TextLine {
        let box = words.dropFirst().reduce(words[0].box) { $0.union($1.box) }
        return TextLine(box: box, confidence: TreeBuilder.mean(words.map(\.confidence)), words: words, engine: engine)
    }
}
