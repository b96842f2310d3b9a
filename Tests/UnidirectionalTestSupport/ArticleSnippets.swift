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

extension ArticleSnippets {
  /// The problems that keep the articles of a DocC catalog (or any Markdown files) from being
  /// compiled, one message each: an article with ```swift blocks and no test file, and each
  /// snippet missing from its test file.
  ///
  /// The test file of `Name.md` is `NameArticleTests.swift`, anywhere under one of `testRoots`.
  /// An article without Swift blocks needs none, so a new article with code fails until its
  /// test file exists.
  ///
  /// - Parameters:
  ///   - articles: The Markdown files to check.
  ///   - testRoots: The folders searched for test files, recursively.
  ///   - testFileNames: Test file names for articles whose test file is named otherwise, by
  ///     article file name (`["ServerApps.md": "ServerArticleTests.swift"]`).
  /// - Returns: One message per problem, empty when every snippet is compiled.
  public static func problems(
    articles: [URL], testRoots: [URL], testFileNames: [String: String] = [:]
  ) -> [String] {
    let testFiles = testRoots.flatMap { swiftFiles(under: $0) }
    var problems: [String] = []
    for article in articles {
      guard let markdown = try? String(contentsOf: article, encoding: .utf8) else {
        problems.append("\(article.path): cannot be read")
        continue
      }
      guard !swiftBlocks(in: markdown).isEmpty else { continue }
      let name = testFileNames[article.lastPathComponent] ?? testFileName(for: article)
      let matches = testFiles.filter { $0.lastPathComponent == name }
      guard matches.count == 1, let testFile = matches.first,
        let tests = try? String(contentsOf: testFile, encoding: .utf8)
      else {
        problems.append(
          "\(article.lastPathComponent) has Swift code but \(matches.count) files named "
            + "\(name) (one must compile and run each of its ```swift blocks verbatim)")
        continue
      }
      for (snippet, culprit) in missing(from: tests, in: markdown) {
        problems.append(
          "a snippet of \(article.lastPathComponent) is not in \(name): \(snippet) "
            + "(the first line that differs: \(culprit))")
      }
    }
    return problems
  }

  /// The Markdown files under `catalog`, recursively, sorted by path.
  ///
  /// - Parameter catalog: A `.docc` folder.
  /// - Returns: The URLs of its `.md` files.
  public static func articles(in catalog: URL) -> [URL] {
    files(under: catalog).filter { $0.pathExtension == "md" }
  }

  /// The name of the test file that compiles `article`: `NameArticleTests.swift`.
  ///
  /// - Parameter article: A Markdown file.
  /// - Returns: The file name, without a folder.
  public static func testFileName(for article: URL) -> String {
    article.deletingPathExtension().lastPathComponent + "ArticleTests.swift"
  }

  /// The root of the package, found from a file inside it (pass `#filePath`).
  ///
  /// - Parameter file: A file of the package.
  /// - Returns: The nearest folder above `file` that holds `Package.swift`.
  public static func packageRoot(from file: String) -> URL {
    var folder = URL(fileURLWithPath: file).deletingLastPathComponent()
    while folder.path != "/",
      !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
    {
      folder = folder.deletingLastPathComponent()
    }
    return folder
  }

  private static func swiftFiles(under folder: URL) -> [URL] {
    files(under: folder).filter { $0.pathExtension == "swift" }
  }

  private static func files(under folder: URL) -> [URL] {
    guard
      let enumerator = FileManager.default.enumerator(
        at: folder, includingPropertiesForKeys: nil)
    else { return [] }
    return enumerator.compactMap { $0 as? URL }
      .filter { !$0.path.contains("/.build") }
      .sorted { $0.path < $1.path }
  }
}
