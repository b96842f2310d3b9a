import Foundation
import Testing
import UnidirectionalTestSupport

/// Keeps the article "Testing" and its compiled code in sync: every ```swift block of
/// `Testing.md` must appear in `TestingArticleTests.swift`, line for line (see
/// `ArticleSnippets`).
@Suite struct TestingArticleSnippetTests {
  /// The directory of this file.
  static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

  static let article = testsDirectory.appendingPathComponent(
    "../../Sources/UnidirectionalTesting/UnidirectionalTesting.docc/Testing.md"
  ).standardizedFileURL

  static let tests = testsDirectory.appendingPathComponent("TestingArticleTests.swift")

  @Test func everySnippetOfTheArticleIsCompiledAndRun() throws {
    let article = try String(contentsOf: Self.article, encoding: .utf8)
    let tests = try String(contentsOf: Self.tests, encoding: .utf8)
    let snippets = ArticleSnippets.swiftBlocks(in: article)
    #expect(snippets.count >= 10, "Found only \(snippets.count) Swift blocks in the article.")
    for (snippet, culprit) in ArticleSnippets.missing(from: tests, in: article) {
      Issue.record(
        """
        A snippet of Testing.md is not in TestingArticleTests.swift: \(snippet)
        (the first line that differs: \(culprit))
        """)
    }
  }

  @Test func theComparisonIgnoresIndentationButNotOrder() {
    let source = ArticleSnippets.normalized("func f() {\n    let a = 1\n\n    let b = 2\n}\n")
    #expect(ArticleSnippets.contains(source, ArticleSnippets.normalized("let a = 1\nlet b = 2")))
    #expect(!ArticleSnippets.contains(source, ArticleSnippets.normalized("let b = 2\nlet a = 1")))
    #expect(!ArticleSnippets.contains(source, ArticleSnippets.normalized("let a = 2")))
  }

  @Test func swiftBlocksAreFound() {
    let markdown = "Text\n\n```swift\nlet a = 1\n```\n\n```\nnot swift\n```\n\n```swift\nb()\n```\n"
    #expect(ArticleSnippets.swiftBlocks(in: markdown) == ["let a = 1", "b()"])
  }

  @Test func aSnippetMissingFromTheTestsIsNamed() {
    let article = "```swift\nlet a = 1\nlet b = 2\n```\n"
    let missing = ArticleSnippets.missing(from: "let a = 1\nlet c = 3\n", in: article)
    #expect(missing.map(\.snippet) == ["let a = 1"])
    #expect(missing.map(\.firstDifferingLine) == ["let b = 2"])
  }
}
