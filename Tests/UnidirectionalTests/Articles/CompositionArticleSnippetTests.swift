import Foundation
import Testing
import UnidirectionalTestSupport

/// Keeps the article "Composition and navigation" and its compiled code in sync: every ```swift
/// block of `CompositionAndNavigation.md` must appear in `CompositionArticleTests.swift`, line
/// for line (see `ArticleSnippets`).
@Suite struct CompositionArticleSnippetTests {
  static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

  static let article = testsDirectory.appendingPathComponent(
    "../../../Sources/Unidirectional/Unidirectional.docc/CompositionAndNavigation.md"
  ).standardizedFileURL

  static let tests = testsDirectory.appendingPathComponent("CompositionArticleTests.swift")

  @Test func everySnippetOfTheArticleIsCompiled() throws {
    let article = try String(contentsOf: Self.article, encoding: .utf8)
    let tests = try String(contentsOf: Self.tests, encoding: .utf8)
    let snippets = ArticleSnippets.swiftBlocks(in: article)
    #expect(snippets.count >= 8, "Found only \(snippets.count) Swift blocks in the article.")
    for (snippet, culprit) in ArticleSnippets.missing(from: tests, in: article) {
      Issue.record(
        """
        A snippet of CompositionAndNavigation.md is not in CompositionArticleTests.swift: \
        \(snippet) (the first line that differs: \(culprit))
        """)
    }
  }
}
