import Foundation
import Testing
import UnidirectionalTestSupport

/// Keeps the documentation and the code that compiles it in step: every ```swift block of
/// README.md and of every article of every DocC catalog under `Sources` must appear, line for
/// line, in the article's test file, `<Article>ArticleTests.swift` (README.md's is
/// `READMEArticleTests.swift`), which compiles and runs it (see `ArticleSnippets`).
///
/// A new article with Swift code and no test file fails here, as does a snippet edited in the
/// article and not in its test (or the other way round). A snippet that no longer compiles fails
/// the build of its test target.
@Suite struct DocumentationSnippetTests {
  static let root = ArticleSnippets.packageRoot(from: #filePath)

  /// Where test files are looked for.
  static let testRoots = ["Tests", "CaseStudies"].map { root.appendingPathComponent($0) }

  /// Articles whose test file is named otherwise than `<Article>ArticleTests.swift`.
  static let testFileNames = [
    // The server case study's test target compiles and runs it (it needs the server's code).
    "ServerApps.md": "ServerArticleTests.swift"
  ]

  /// Every DocC catalog of the package.
  static var catalogs: [URL] {
    let sources = root.appendingPathComponent("Sources")
    let modules =
      (try? FileManager.default.contentsOfDirectory(
        at: sources, includingPropertiesForKeys: nil)) ?? []
    return modules.map { $0.appendingPathComponent($0.lastPathComponent + ".docc") }
      .filter { FileManager.default.fileExists(atPath: $0.path) }
      .sorted { $0.path < $1.path }
  }

  @Test func everySnippetOfEveryArticleIsCompiled() {
    let catalogs = Self.catalogs
    #expect(catalogs.count >= 2, "Found only these catalogs: \(catalogs.map(\.path))")
    let articles = catalogs.flatMap { ArticleSnippets.articles(in: $0) }
    let snippets = articles.reduce(0) { count, article in
      count
        + ArticleSnippets.swiftBlocks(in: (try? String(contentsOf: article, encoding: .utf8)) ?? "")
        .count
    }
    #expect(snippets >= 60, "Found only \(snippets) Swift blocks in \(articles.count) articles.")
    let problems = ArticleSnippets.problems(
      articles: articles, testRoots: Self.testRoots, testFileNames: Self.testFileNames)
    for problem in problems {
      Issue.record(Comment(rawValue: problem))
    }
  }

  @Test func everySnippetOfTheREADMEIsCompiled() {
    let readme = Self.root.appendingPathComponent("README.md")
    let markdown = (try? String(contentsOf: readme, encoding: .utf8)) ?? ""
    #expect(ArticleSnippets.swiftBlocks(in: markdown).count >= 4)
    for problem in ArticleSnippets.problems(articles: [readme], testRoots: Self.testRoots) {
      Issue.record(Comment(rawValue: problem))
    }
  }

  // MARK: The checker itself

  @Test func anArticleWithCodeAndNoTestFileIsAProblem() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("article-snippets-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let withCode = folder.appendingPathComponent("WithCode.md")
    let withoutCode = folder.appendingPathComponent("Prose.md")
    try "Text\n\n```swift\nlet a = 1\n```\n".write(to: withCode, atomically: true, encoding: .utf8)
    try "Only prose.\n\n```\nnot swift\n```\n".write(
      to: withoutCode, atomically: true, encoding: .utf8)

    let before = ArticleSnippets.problems(articles: [withCode, withoutCode], testRoots: [folder])
    #expect(before.count == 1)
    #expect(before.first?.contains("WithCodeArticleTests.swift") == true)

    let tests = folder.appendingPathComponent("WithCodeArticleTests.swift")
    try "func f() {\n  let a = 2\n}\n".write(to: tests, atomically: true, encoding: .utf8)
    let wrong = ArticleSnippets.problems(articles: [withCode], testRoots: [folder])
    #expect(wrong.count == 1)
    #expect(wrong.first?.contains("the first line that differs: let a = 1") == true)

    try "func f() {\n  let a = 1\n}\n".write(to: tests, atomically: true, encoding: .utf8)
    #expect(ArticleSnippets.problems(articles: [withCode], testRoots: [folder]).isEmpty)

    // A test file named otherwise counts only when named for the article.
    let renamed = folder.appendingPathComponent("OtherTests.swift")
    try FileManager.default.moveItem(at: tests, to: renamed)
    #expect(ArticleSnippets.problems(articles: [withCode], testRoots: [folder]).count == 1)
    let named = ArticleSnippets.problems(
      articles: [withCode], testRoots: [folder],
      testFileNames: ["WithCode.md": "OtherTests.swift"])
    #expect(named.isEmpty)
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
