import Foundation
import Testing
import TicTacToeServerCore
import Unidirectional
import UnidirectionalTestSupport

/// A damaged journal: the real server refuses it (exit 74) and says how to repair it; with
/// `--repair-journal` it moves the damage to a quarantine file and starts.
@Suite struct JournalRepairTests {
  @Test func aDamagedJournalIsRefusedUntilRepairedWithTheFlag() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("tictactoe-repair-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
      .path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    let path = directory + "/journal.jsonl"
    do {
      let log = try DurableActionLog<Journal.Action>(
        path: path, program: GameJournal.program, redactsSecrets: false,
        committer: ActionLogCommitter())
      let store = Store(
        initialState: Journal.State(), reducer: Journal(), interceptors: [log.interceptor()])
      for game in ["g1", "g2", "g3"] {
        try await log.waitUntilDurable(store.send(.ended(game: game)))
      }
    }
    // A byte of entry 2 (line 3) damaged; entry 3 after it still verifies.
    var bytes = Array(FileManager.default.contents(atPath: path) ?? Data())
    let lineStarts = bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
    bytes[lineStarts[1] + 15] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: path))

    let refused = Process()
    refused.executableURL = ServerProcess.executable
    refused.arguments = ["--port", "0", "--data-dir", directory, "--quiet"]
    let stderr = Pipe()
    refused.standardError = stderr
    refused.standardOutput = FileHandle.nullDevice
    try refused.run()
    let message = String(
      decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    refused.waitUntilExit()
    #expect(refused.terminationStatus == 74)
    #expect(message.contains("\(path), line 3: damaged entry at byte offset \(lineStarts[1])"))
    #expect(message.contains("--repair-journal"))
    #expect(Array(FileManager.default.contents(atPath: path) ?? Data()) == bytes)

    let server = try ServerProcess(["--data-dir", directory, "--repair-journal"])
    let (status, log) = server.stop()
    #expect(status == 0)
    #expect(log.contains("moved a damaged part (from line 3, byte \(lineStarts[1])"))
    #expect(log.contains("journal: 1 entries on disk"))
    let quarantined = FileManager.default.contents(atPath: path + ".quarantine-1")
    #expect(quarantined == Data(bytes[lineStarts[1]...]))
  }
}
