import Foundation

/// Keeps a documentation article and the test file that compiles its code in step: every
/// ```swift block of the article must appear in the test file, line for line.
///
/// Lines are compared without their leading and trailing whitespace, and blank lines are
/// ignored, so a snippet may be nested deeper in the tests than in the article.
public enum ArticleSnippets {
  /// The snippets of `article` that do not appear in `tests`, each with the first line that
  /// breaks the match.
  ///
  /// - Parameters:
  ///   - article: The article's Markdown.
  ///   - tests: The source of the test file that compiles and runs the article's code.
  public static func missing(from tests: String, in article: String) -> [(
    snippet: String, firstDifferingLine: String
  )] {
    let source = normalized(tests)
    return swiftBlocks(in: article).compactMap { snippet in
      let lines = normalized(snippet)
      guard let first = lines.first, !contains(source, lines) else { return nil }
      let matched = (1...lines.count).last { contains(source, Array(lines.prefix($0))) } ?? 0
      return (first, matched < lines.count ? lines[matched] : first)
    }
  }

  /// The contents of the ```swift blocks of `markdown`, in order.
  public static func swiftBlocks(in markdown: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if var lines = current {
        if trimmed == "```" {
          blocks.append(lines.joined(separator: "\n"))
          current = nil
        } else {
          lines.append(line)
          current = lines
        }
      } else if trimmed == "```swift" {
        current = []
      }
    }
    return blocks
  }

  /// The lines of `text` without leading and trailing whitespace, blank lines left out.
  public static func normalized(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }

  /// Whether `lines` occur in `source` one after another.
  public static func contains(_ source: [String], _ lines: [String]) -> Bool {
    guard !lines.isEmpty, lines.count <= source.count else { return lines.isEmpty }
    return (0...(source.count - lines.count)).contains { start in
      source[start..<(start + lines.count)].elementsEqual(lines)
    }
  }
}
