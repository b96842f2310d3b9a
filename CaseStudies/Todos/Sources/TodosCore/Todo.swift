import CaseStudySupport
import Foundation
import Unidirectional

/// One to-do item: what the list holds and what the file stores.
public struct Todo: Codable, Equatable, Identifiable, Sendable {
  /// Stable identity: survives edits, moves and saving.
  public var id: UUID
  /// What there is to do: 1 to ``Title/maximumLength`` characters, no line breaks.
  public var title: String
  /// Whether it is done.
  public var isComplete: Bool
  /// Tags, in the order they were added, each valid by ``Tag/problem(with:)``, no repeats.
  public var tags: [String]

  /// Creates a to-do item.
  public init(id: UUID, title: String, isComplete: Bool = false, tags: [String] = []) {
    self.id = id
    self.title = title
    self.isComplete = isComplete
    self.tags = tags
  }
}

/// The rules for a to-do's title, shared by the parser, the editor and the file loader.
public enum Title {
  /// The longest title allowed, in characters.
  public static let maximumLength = 80

  /// What is wrong with `text` as a title (after trimming surrounding whitespace), or `nil` if
  /// it is a valid title. The message names the problem and the rule, in one line.
  public static func problem(with text: some StringProtocol) -> String? {
    let title = text.trimmed
    if title.isEmpty { return "the title is empty; write at least one character" }
    if title.count > maximumLength {
      return "the title is \(title.count) characters long; the limit is \(maximumLength)"
    }
    if let bad = title.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
      return "the title contains a control character (U+\(hex(bad))); use plain text"
    }
    return nil
  }

  /// `text` trimmed, as it is stored.
  public static func normalized(_ text: some StringProtocol) -> String {
    String(text.trimmed)
  }

  private static func hex(_ scalar: Unicode.Scalar) -> String {
    let digits = String(scalar.value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}

/// The rules for tags: short words of lowercase letters, digits and dashes.
public enum Tag {
  /// The longest tag allowed, in characters.
  public static let maximumLength = 20
  /// The most tags one item may have.
  public static let maximumCount = 10

  /// What is wrong with `text` as a tag (after trimming and lowercasing), or `nil` if valid.
  public static func problem(with text: some StringProtocol) -> String? {
    let tag = normalized(text)
    if tag.isEmpty { return "the tag is empty" }
    if tag.count > maximumLength {
      return "the tag '\(tag.truncatedForDisplay())' is \(tag.count) characters long; "
        + "the limit is \(maximumLength)"
    }
    if let bad = tag.first(where: { !(("a"..."z").contains($0) || $0.isASCIIDigit || $0 == "-") }) {
      return "the tag '\(tag.truncatedForDisplay())' contains '\(bad)'; "
        + "use letters a-z, digits and '-'"
    }
    return nil
  }

  /// `text` trimmed and lowercased, as it is stored.
  public static func normalized(_ text: some StringProtocol) -> String {
    String(text.trimmed).lowercased()
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// Which items the list shows.
public enum Filter: String, CaseIterable, Codable, Equatable, Sendable {
  /// Every item.
  case all
  /// Items not done yet.
  case active
  /// Items done.
  case completed

  /// Whether `todo` is shown under this filter.
  public func shows(_ todo: Todo) -> Bool {
    switch self {
    case .all: true
    case .active: !todo.isComplete
    case .completed: todo.isComplete
    }
  }
}
