/// A 3×3 tic-tac-toe board.
///
/// Cells are addressed by row and column, both 0...2. On the terminal, columns are the letters
/// `a`, `b`, `c` and rows the digits `1`, `2`, `3`: `b2` is the centre.
public struct Board: Equatable, Sendable {
  /// The cells, row by row.
  public private(set) var cells: [Player?] = Array(repeating: nil, count: 9)

  /// Creates an empty board.
  public init() {}

  /// Creates a board from three rows of `X`, `O` or anything else for empty, e.g.
  /// `["XO.", ".X.", "..O"]`. For tests and examples.
  public init(_ rows: [String]) {
    precondition(rows.count == 3 && rows.allSatisfy { $0.count == 3 }, "a board is 3×3")
    for (row, text) in rows.enumerated() {
      for (column, character) in text.enumerated() {
        self[row, column] = Player(rawValue: String(character))
      }
    }
  }

  /// The mark in a cell, or `nil` if it is empty.
  public subscript(row: Int, column: Int) -> Player? {
    get { cells[row * 3 + column] }
    set { cells[row * 3 + column] = newValue }
  }

  /// The eight lines that win: three rows, three columns, two diagonals, as cell indices.
  static let lines: [[Int]] = [
    [0, 1, 2], [3, 4, 5], [6, 7, 8],
    [0, 3, 6], [1, 4, 7], [2, 5, 8],
    [0, 4, 8], [2, 4, 6],
  ]

  /// The player who has three in a line, if any.
  public var winner: Player? {
    for line in Self.lines {
      if let player = cells[line[0]], cells[line[1]] == player, cells[line[2]] == player {
        return player
      }
    }
    return nil
  }

  /// Whether every cell is taken.
  public var isFull: Bool { !cells.contains(nil) }

  /// The name of a cell on the terminal: `a1` … `c3`.
  public static func coordinate(row: Int, column: Int) -> String {
    "\(["a", "b", "c"][column])\(row + 1)"
  }

  /// Parses a coordinate such as `b2` (also `B2` or `b 2`): column letter, then row digit.
  ///
  /// - Returns: The row and column, or `nil` if `text` is not a coordinate.
  public static func parseCoordinate(_ text: some StringProtocol) -> (row: Int, column: Int)? {
    let characters = Array(text.lowercased().filter { !$0.isWhitespace })
    guard characters.count == 2,
      let column = ["a", "b", "c"].firstIndex(of: characters[0]),
      let rowNumber = characters[1].wholeNumberValue, (1...3).contains(rowNumber)
    else { return nil }
    return (rowNumber - 1, column)
  }
}
