import Foundation
import Testing

/// Keeps the article "Testing" and its compiled code in sync: every ```swift block of
/// `Testing.md` must appear in `TestingArticleTests.swift`, line for line.
///
/// Lines are compared without their leading and trailing whitespace, and blank lines are
/// ignored, so a snippet may be nested deeper in the tests than in the article.
@Suite struct TestingArticleSnippetTests {
  /// The directory of this file.
  static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

  static let article = testsDirectory.appendingPathComponent(
    "../../Sources/UnidirectionalTesting/UnidirectionalTesting.docc/Testing.md"
  ).standardizedFileURL

  static let tests = testsDirectory.appendingPathComponent("TestingArticleTests.swift")

  @Test func everySnippetOfTheArticleIsCompiledAndRun() throws {
    let article = try String(contentsOf: Self.article, encoding: .utf8)
    let tests = normalized(try String(contentsOf: Self.tests, encoding: .utf8))
    let snippets = swiftBlocks(in: article)
    #expect(snippets.count >= 10, "Found only \(snippets.count) Swift blocks in the article.")
    for snippet in snippets {
      let lines = normalized(snippet)
      guard let first = lines.first else { continue }
      if !contains(tests, lines) {
        // The first line that breaks the match, to say where the two differ.
        let matched = (1...lines.count).last { contains(tests, Array(lines.prefix($0))) } ?? 0
        let culprit = matched < lines.count ? lines[matched] : first
        Issue.record(
          """
          A snippet of Testing.md is not in TestingArticleTests.swift: \(first)
          (the first line that differs: \(culprit))
          """)
      }
    }
  }

  @Test func theComparisonIgnoresIndentationButNotOrder() {
    let source = normalized("func f() {\n    let a = 1\n\n    let b = 2\n}\n")
    #expect(contains(source, normalized("let a = 1\nlet b = 2")))
    #expect(!contains(source, normalized("let b = 2\nlet a = 1")))
    #expect(!contains(source, normalized("let a = 2")))
  }

  @Test func swiftBlocksAreFound() {
    let markdown = "Text\n\n```swift\nlet a = 1\n```\n\n```\nnot swift\n```\n\n```swift\nb()\n```\n"
    #expect(swiftBlocks(in: markdown) == ["let a = 1", "b()"])
  }

  /// The contents of the ```swift blocks of `markdown`, in order.
  private func swiftBlocks(in markdown: String) -> [String] {
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
  private func normalized(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }

  /// Whether `lines` occur in `source` one after another.
  private func contains(_ source: [String], _ lines: [String]) -> Bool {
    guard !lines.isEmpty, lines.count <= source.count else { return lines.isEmpty }
    return (0...(source.count - lines.count)).contains { start in
      source[start..<(start + lines.count)].elementsEqual(lines)
    }
  }
}
