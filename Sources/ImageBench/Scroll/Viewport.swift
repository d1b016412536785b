/// The table's geometry: fixed-height rows under a screen-sized viewport.
struct Viewport: Sendable, Equatable {
    /// 88 pt rows and an 844 pt viewport (an iPhone 14's screen): about ten rows visible.
    static let defaultRowHeight = 88.0
    static let defaultHeight = 844.0

    let rowCount: Int
    let rowHeight: Double
    let height: Double

    init(rowCount: Int, rowHeight: Double = Viewport.defaultRowHeight,
                height: Double = Viewport.defaultHeight) {
        precondition(rowCount > 0 && rowHeight > 0 && height > 0, "empty table geometry")
        self.rowCount = rowCount
        self.rowHeight = rowHeight
        self.height = height
    }

    var contentHeight: Double { Double(rowCount) * rowHeight }

    /// The largest scroll offset: the last row's bottom at the viewport's bottom.
    var maxOffset: Double { max(0, contentHeight - height) }

    /// Rows with at least one point on screen at `offset` (partial rows count, as a table view
    /// dequeues a cell as soon as one point of it shows). Offsets are clamped to the content.
    func visibleRows(at offset: Double) -> Range<Int> {
        let top = min(max(0, offset), maxOffset)
        let first = Int((top / rowHeight).rounded(.down))
        let last = Int(((top + height) / rowHeight).rounded(.up))
        return max(0, first)..<min(rowCount, max(first, last))
    }
}
