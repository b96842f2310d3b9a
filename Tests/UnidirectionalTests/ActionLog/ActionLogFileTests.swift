import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the recorder creates its file: mode 0600, never replacing a file unless asked.
@Suite struct ActionLogFileTests {
  enum Action: Codable, Equatable, Sendable {
    case tick
  }

  /// The permission bits of the file at `path`, from `stat`.
  func mode(of path: String) throws -> mode_t {
    var status = stat()
    try #require(lstat(path, &status) == 0)
    return status.st_mode & 0o7777
  }

  @Test func aNewLogIsReadableByItsOwnerOnly() throws {
    let path = temporaryFilePath("action-log-file")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try ActionLogRecorder<Action>(path: path, program: "p")
    recorder.record(.tick)
    #expect(try mode(of: path) == 0o600)
  }

  @Test func anExistingFileIsRefusedAndLeftUntouched() throws {
    let path = temporaryFilePath("action-log-file")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try "precious\n".write(toFile: path, atomically: false, encoding: .utf8)
    let error = try #require(throws: ActionLogError.self) {
      try ActionLogRecorder<Action>(path: path, program: "p")
    }
    #expect(error == ActionLogError(path: path, line: nil, reason: .fileExists))
    #expect(
      error.description == """
        \(path): the file already exists; not overwriting it (to replace it, record with \
        overwrite: true, which programs offer as --force)
        """)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious\n")
  }

  @Test func overwriteReplacesTheFileAndSetsItsMode() throws {
    let path = temporaryFilePath("action-log-file")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try String(repeating: "old line\n", count: 100).write(
      toFile: path, atomically: false, encoding: .utf8)
    try #require(chmod(path, 0o644) == 0)
    let recorder = try ActionLogRecorder<Action>(path: path, program: "p", overwrite: true)
    recorder.record(.tick)
    #expect(try mode(of: path) == 0o600)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(!text.contains("old line"))
    let log = try ActionLog<Action>(path: path, program: "p")
    #expect(log.entries.map(\.action) == [.tick])
    #expect(log.error == nil)
  }

  @Test func aSymbolicLinkIsNeverWrittenThrough() throws {
    let target = temporaryFilePath("action-log-target")
    let link = temporaryFilePath("action-log-link")
    defer {
      try? FileManager.default.removeItem(atPath: target)
      try? FileManager.default.removeItem(atPath: link)
    }
    try "precious\n".write(toFile: target, atomically: false, encoding: .utf8)
    try #require(symlink(target, link) == 0)
    for overwrite in [false, true] {
      #expect(throws: ActionLogError.self) {
        try ActionLogRecorder<Action>(path: link, program: "p", overwrite: overwrite)
      }
    }
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
  }
}
