import Dispatch
import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// The snapshot file when two logs write it at once: a log closed and reopened on the same path
/// leaves the old log's committer writing its last snapshot while the new one recovers and
/// writes its own (a CI run of the server's tests read a torn snapshot, and an old writer's
/// `rename` found its temporary file taken by the new one).
@Suite struct ActionLogSnapshotFileTests {
  @Test func twoWritersOfOneSnapshotNeverTearItOrFailEachOther() throws {
    let directory = temporaryFilePath("snapshot-writers").replacingOccurrences(
      of: ".jsonl", with: "")
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/game.snapshot.json"
    // Big enough that a write takes several system calls' time, so the writers overlap.
    let contents = (0..<2).map { writer in
      Data(repeating: UInt8(ascii: writer == 0 ? "a" : "b"), count: 256 * 1024)
    }
    try LogFile.replaceAtomically(path, with: contents[0])
    let rounds = 200
    let failures = Log<String>()
    let finishedWriters = Locked(0)
    let done = DispatchSemaphore(value: 0)
    // Threads of their own: a pool of two cores' width could run the writers one after the other.
    for writer in 0..<2 {
      Thread.detachNewThread {
        defer {
          finishedWriters.withLock { $0 += 1 }
          done.signal()
        }
        for _ in 0..<rounds {
          do throws(ActionLogError) {
            try LogFile.replaceAtomically(path, with: contents[writer])
          } catch {
            failures.append("writer \(writer): \(error)")
          }
        }
      }
    }
    // This thread reads until both writers are done: every read is one writer's whole file.
    while finishedWriters.withLock({ $0 }) < 2 {
      guard let data = FileManager.default.contents(atPath: path) else {
        failures.append("a read found no file")
        continue
      }
      if !contents.contains(data) {
        failures.append("a read found \(data.count) bytes of neither writer")
      }
    }
    done.wait()
    done.wait()
    let found = failures.values
    #expect(found.isEmpty, "\(found.count) failures, the first: \(found.prefix(3))")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(left == ["game.snapshot.json"], "temporary files left: \(left)")
  }
}
