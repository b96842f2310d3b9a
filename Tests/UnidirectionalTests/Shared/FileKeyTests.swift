import Dispatch
import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

#if canImport(Glibc)
  import Glibc
#endif

struct Settings: Codable, Equatable, Sendable {
  var step = 1
  var name = "counter"
}

/// A directory of its own for one test, removed by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() {
    path =
      FileManager.default.temporaryDirectory.path
      + "/unidirectional-shared-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> String { path + "/" + name }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}

@Suite struct FileKeyTests {
  // MARK: In memory (a test's isolated storage)

  @Test func anIsolatedStorageKeepsFilesInMemory() async {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("settings.json")
    let storage = SharedStorage()
    var settings = inStorage(storage) { Shared(.file(path), default: Settings()) }
    settings.withLock { $0.step = 5 }
    await storage.saved()
    #expect(!FileManager.default.fileExists(atPath: path))
    let saved = try! JSONDecoder().decode(Settings.self, from: #require(storage.file(path)))
    #expect(saved == Settings(step: 5))
  }

  @Test func aValueLoadsFromTheFileThereIs() {
    let storage = SharedStorage()
    storage.setFile("/tmp/a/settings.json", to: Data(#"{"step": 3, "name": "loaded"}"#.utf8))
    let settings = inStorage(storage) {
      Shared(.file("/tmp/a/../a/settings.json"), default: Settings())
    }
    #expect(settings.value == Settings(step: 3, name: "loaded"))
  }

  @Test func aChangedFileChangesTheValueAndTellsSubscribers() {
    let storage = SharedStorage()
    let settings = inStorage(storage) { Shared(.file("/tmp/s.json"), default: Settings()) }
    let heard = Locked<[Settings]>([])
    let token = settings.reference.subscribe { value, _ in heard.withLock { $0.append(value) } }
    storage.setFile("/tmp/s.json", to: Data(#"{"step": 9, "name": "other"}"#.utf8))
    #expect(heard.withLock { $0 } == [Settings(step: 9, name: "other")])
    #expect(settings.reference.current.value == Settings(step: 9, name: "other"))
    // The same bytes again: no change.
    storage.setFile("/tmp/s.json", to: Data(#"{"step": 9, "name": "other"}"#.utf8))
    #expect(heard.withLock { $0.count } == 1)
    withExtendedLifetime(token) {}
  }

  @Test func aCorruptFileIsReportedAndNeverOverwritten() async {
    let issues = ReportedIssues()
    let storage = SharedStorage(onIssue: issues.record)
    let corrupt = Data(#"{"step": "#.utf8)
    storage.setFile("/tmp/c.json", to: corrupt)
    var settings = inStorage(storage) { Shared(.file("/tmp/c.json"), default: Settings()) }
    #expect(settings.value == Settings())
    guard case .corrupt(let path, let reason) = issues.all.first else {
      Issue.record("expected a corrupt-file issue, got \(issues.all)")
      return
    }
    #expect(path == "/tmp/c.json")
    #expect(!reason.isEmpty)
    settings.withLock { $0.step = 2 }
    settings.withLock { $0.step = 3 }
    await storage.saved()
    #expect(storage.file("/tmp/c.json") == corrupt)
    // The refusal is reported once, with what to do.
    #expect(issues.all.count == 2)
    #expect(issues.all.last == .notOverwritten(path: "/tmp/c.json"))
    #expect(issues.all.last?.advice.contains("Repair it") == true)
  }

  @Test func aRepairedFileLoadsAndSavingResumes() async {
    let issues = ReportedIssues()
    let storage = SharedStorage(onIssue: issues.record)
    storage.setFile("/tmp/r.json", to: Data("not json".utf8))
    var settings = inStorage(storage) { Shared(.file("/tmp/r.json"), default: Settings()) }
    storage.setFile("/tmp/r.json", to: Data(#"{"step": 4, "name": "fixed"}"#.utf8))
    #expect(settings.reference.current.value == Settings(step: 4, name: "fixed"))
    settings.withLock { $0.step += 1 }
    await storage.saved()
    let saved = try! JSONDecoder().decode(
      Settings.self, from: #require(storage.file("/tmp/r.json")))
    #expect(saved == Settings(step: 5, name: "fixed"))
  }

  @Test func aFileThatBecomesCorruptIsNotOverwritten() async {
    let issues = ReportedIssues()
    let storage = SharedStorage(onIssue: issues.record)
    var settings = inStorage(storage) { Shared(.file("/tmp/b.json"), default: Settings()) }
    storage.setFile("/tmp/b.json", to: Data("{".utf8))
    settings.withLock { $0.step = 8 }
    await storage.saved()
    #expect(storage.file("/tmp/b.json") == Data("{".utf8))
    #expect(issues.all.contains(.notOverwritten(path: "/tmp/b.json")))
  }

  @Test func aBurstOfChangesIsSavedOnceWithTheNewestValue() async {
    struct Recording: SharedKey {
      let saves: Locked<[Int]>
      let firstSaveStarted: DispatchSemaphore
      let firstSave: DispatchSemaphore
      var id: String { "recording" }
      func load(from storage: SharedStorage) throws -> Int? { nil }
      func save(_ value: Int, to storage: SharedStorage) throws {
        let isFirst = saves.withLock { saves in
          saves.append(value)
          return saves.count == 1
        }
        // The first save holds the queue while the burst happens.
        if isFirst {
          firstSaveStarted.signal()
          firstSave.wait()
        }
      }
    }
    let saves = Locked<[Int]>([])
    let firstSaveStarted = DispatchSemaphore(value: 0)
    let firstSave = DispatchSemaphore(value: 0)
    let storage = SharedStorage()
    var count = inStorage(storage) {
      Shared(
        Recording(saves: saves, firstSaveStarted: firstSaveStarted, firstSave: firstSave),
        default: 0)
    }
    count.withLock { $0 = 1 }
    // The burst waits until the first save has taken its value (1) and holds the queue.
    firstSaveStarted.wait()
    for value in 2...100 { count.withLock { $0 = value } }
    firstSave.signal()
    await storage.saved()
    #expect(saves.withLock { $0 } == [1, 100])
  }

  @Test func aWatchThatReadsAnEarlierOwnSaveWhileANewerOneIsOnItsWayHearsNoChange() {
    // The race a program saving often met: the watch, woken by save 1's rename, read the file
    // after save 2 was noted but before its rename, and took save 1 for a change from outside.
    let storage = SharedStorage()
    let path = "/tmp/race.json"
    storage.noteFileContents(Data("1".utf8), at: path, isOwnWrite: true)
    storage.noteFileContents(Data("2".utf8), at: path, isOwnWrite: true)
    #expect(!storage.isChangeFromOutside(Data("1".utf8), at: path))
    #expect(!storage.isChangeFromOutside(Data("2".utf8), at: path))
    // Once the newest save was read back, an earlier one read again is another writer's.
    #expect(storage.isChangeFromOutside(Data("1".utf8), at: path))
    #expect(storage.isChangeFromOutside(Data("3".utf8), at: path))
    #expect(!storage.isChangeFromOutside(Data("3".utf8), at: path))
  }

  // MARK: On disk

  @Test func aSaveReplacesTheFileAtomicallyWithMode0600() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("settings.json")
    let storage = SharedStorage(filesOnDisk: true)
    var settings = inStorage(storage) { Shared(.file(path), default: Settings()) }
    settings.withLock { $0.step = 7 }
    await storage.saved()
    let data = try #require(FileManager.default.contents(atPath: path))
    #expect(try JSONDecoder().decode(Settings.self, from: data) == Settings(step: 7))
    #expect(String(decoding: data, as: UTF8.self).hasSuffix("}\n"))
    var status = stat()
    #expect(stat(path, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    // No temporary file is left beside it.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["settings.json"])
  }

  @Test func aFailedSaveLeavesTheOldFileAndNoTemporaryFile() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("list.json")
    try AtomicFile.replace(path, with: Data("old\n".utf8))
    for fault in [AtomicFile.Fault.writingTemporaryFile, .renaming] {
      #expect(throws: SharedStorageError.self) {
        try AtomicFile.replace(path, with: Data("new\n".utf8), fault: fault)
      }
      #expect(FileManager.default.contents(atPath: path) == Data("old\n".utf8))
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["list.json"])
    }
  }

  @Test func aSaveThroughASymbolicLinkReplacesItsTargetAndKeepsTheLink() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let target = directory.file("real.json")
    let link = directory.file("link.json")
    try AtomicFile.replace(target, with: Data(#"{"step": 2, "name": "real"}"#.utf8))
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let storage = SharedStorage(filesOnDisk: true)
    var settings = inStorage(storage) { Shared(.file(link), default: Settings()) }
    #expect(settings.value == Settings(step: 2, name: "real"))
    settings.withLock { $0.step = 3 }
    await storage.saved()
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    let saved = try JSONDecoder().decode(
      Settings.self, from: #require(FileManager.default.contents(atPath: target)))
    #expect(saved == Settings(step: 3, name: "real"))
  }

  @Test func aCorruptFileOnDiskIsReportedWithItsPathAndLeftAsItIs() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("broken.json")
    try AtomicFile.replace(path, with: Data("[1, 2".utf8))
    let issues = ReportedIssues()
    let storage = SharedStorage(filesOnDisk: true, onIssue: issues.record)
    var settings = inStorage(storage) { Shared(.file(path), default: Settings()) }
    settings.withLock { $0.step = 10 }
    await storage.saved()
    #expect(FileManager.default.contents(atPath: path) == Data("[1, 2".utf8))
    #expect(issues.all.first?.path == path)
    #expect(issues.all.first.map { "\($0)" }?.contains("not a valid saved value") == true)
  }

  @Test func aDirectoryThatDoesNotExistIsReported() {
    let issues = ReportedIssues()
    let storage = SharedStorage(filesOnDisk: true, onIssue: issues.record)
    let path = "/nonexistent-\(UInt64.random(in: 0...UInt64.max))/settings.json"
    let settings = inStorage(storage) { Shared(.file(path), default: Settings()) }
    #expect(settings.value == Settings())
    guard case .unreadable(_, let reason) = issues.all.first else {
      Issue.record("expected an unreadable-file issue, got \(issues.all)")
      return
    }
    #expect(reason.contains("does not exist"))
  }

  @Test func aChangeByAnotherWriterIsPickedUpByTheWatch() async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("watched.json")
    let storage = SharedStorage(filesOnDisk: true)
    var settings = inStorage(storage) { Shared(.file(path), default: Settings()) }
    let changed = DispatchGroup()
    changed.enter()
    let heard = Locked<[Settings]>([])
    let token = settings.reference.subscribe { value, _ in
      let isFirstOutside = heard.withLock { heard in
        heard.append(value)
        return value.name == "outside" && heard.filter { $0.name == "outside" }.count == 1
      }
      if isFirstOutside { changed.leave() }
    }
    // This storage's own save is heard as its own, and does not come back as a change.
    settings.withLock { $0.step = 2 }
    await storage.saved()
    // Another writer (this storage does not know its bytes) renames a new file into place.
    try AtomicFile.replace(path, with: Data(#"{"step": 6, "name": "outside"}"#.utf8))
    // wall-clock: a failure bound; inotify reports the rename within milliseconds.
    #expect(await finishes(changed, within: .seconds(30)))
    #expect(settings.reference.current.value == Settings(step: 6, name: "outside"))
    #expect(heard.withLock { $0 } == [Settings(step: 2), Settings(step: 6, name: "outside")])
    withExtendedLifetime(token) {}
  }
}
