import CounterCore
import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport
import UnidirectionalTesting

/// The step, kept in a settings file shared by every counter.
@Suite struct CounterSettingsTests {
  @Test func theStepIsWhatPlusAndMinusAddAndSubtract() async {
    let store = TestStore(initialState: Counter.State()) { Counter.receivingSettings() }
    await store.send(.setStep(5)) { $0.settings.withLock { $0.step = 5 } }
    await store.send(.increment) { $0.count = 5 }
    await store.send(.increment) { $0.count = 10 }
    await store.send(.decrement) { $0.count = 5 }
  }

  @Test func aStepChangedByAnotherCounterIsReceivedAndUsed() async {
    let storage = SharedStorage()
    let path = "/home/ada/.counter.json"
    let store = TestStore(
      initialState: Counter.State(settings: CounterSettings.shared(at: path))
    ) {
      Counter.receivingSettings()
    } withDependencies: {
      $0.sharedStorage = storage
    }
    // Another counter process saved the step 3.
    storage.setFile(path, to: Data(#"{"step": 3}"#.utf8))
    await store.receive(.settingsChanged(SharedChange(value: CounterSettings(step: 3), version: 1)))
    {
      $0.settings.withLock { $0.step = 3 }
    }
    await store.send(.increment) { $0.count = 3 }
  }

  @Test func aSettingsFileWithAStepOutOfRangeIsRefusedAndLeftAsItIs() async {
    let issues = Locked<[SharedStorageError]>([])
    let storage = SharedStorage { issue in issues.withLock { $0.append(issue) } }
    let path = "/home/ada/.counter.json"
    storage.setFile(path, to: Data(#"{"step": 0}"#.utf8))
    let store = TestStore(
      initialState: Counter.State(settings: CounterSettings.shared(at: path))
    ) {
      Counter.receivingSettings()
    } withDependencies: {
      $0.sharedStorage = storage
    }
    await store.send(.increment) { $0.count = 1 }
    await store.send(.setStep(2)) { $0.settings.withLock { $0.step = 2 } }
    await storage.saved()
    #expect(storage.file(path) == Data(#"{"step": 0}"#.utf8))
    let reported = issues.withLock { $0 }
    #expect(reported.first?.description.contains("the step 0 is not from 1 to 1000000") == true)
    #expect(reported.last == .notOverwritten(path: path))
  }

  @Test func theCountHoldsAtTheBoundsWhateverTheStep() async {
    let store = TestStore(initialState: Counter.State(count: .max - 3)) {
      Counter.receivingSettings()
    }
    await store.send(.setStep(1_000_000)) { $0.settings.withLock { $0.step = 1_000_000 } }
    await store.send(.increment) { $0.count = .max }
  }

  @Test(arguments: [
    ("step 5", CounterCommand.send(.setStep(5))),
    ("step 1", .send(.setStep(1))),
    ("step 1000000", .send(.setStep(1_000_000))),
  ])
  func stepCommands(line: String, command: CounterCommand) {
    #expect(CounterCommand(line) == command)
  }

  @Test(arguments: [
    "step", "step 0", "step -1", "step 1000001", "step 9223372036854775807",
    "step 9223372036854775808", "step 18446744073709551616", "step 1e3", "step 5.0", "step five",
    "step 5 6",
  ])
  func stepsOutOfRangeOrNotWholeNumbersAreRefused(line: String) {
    guard case .invalid(let message) = CounterCommand(line) else {
      Issue.record("'\(line)' was accepted")
      return
    }
    #expect(message.contains("'step' needs a whole number from 1 to 1000000"))
  }

  @Test func theProgramKeepsTheStepForItsNextRun() throws {
    var environment = CounterEnvironment.isolated
    let path = try #require(environment["COUNTER_SETTINGS"])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try Program.run(
      "counter", input: Data("step 5\n+\n".utf8), environment: environment)
    #expect(first.standardOutput == "count: 0\nstep: 5\ncount: 5\n")
    var status = stat()
    #expect(stat(path, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    environment["COUNTER_SETTINGS"] = path
    let second = try Program.run("counter", input: Data("+\n-\n".utf8), environment: environment)
    #expect(second.standardOutput == "count: 0\ncount: 5\ncount: 0\n")
  }

  @Test func aCorruptSettingsFileIsReportedAndTheProgramCountsByOne() throws {
    let environment = CounterEnvironment.isolated
    let path = try #require(environment["COUNTER_SETTINGS"])
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
    let output = try Program.run(
      "counter", input: Data("+\nstep 2\n+\n".utf8), environment: environment)
    #expect(output.status == 0)
    #expect(output.standardOutput == "count: 0\ncount: 1\nstep: 2\ncount: 3\n")
    #expect(output.standardError.contains("\(path) is not a valid saved value"))
    #expect(output.standardError.contains("The file was left untouched"))
    #expect(FileManager.default.contents(atPath: path) == Data("{ not json".utf8))
  }

  @Test func aRecordedSessionReplaysWithTheStepItHad() throws {
    let environment = CounterEnvironment.isolated
    let settings = try #require(environment["COUNTER_SETTINGS"])
    let log = temporaryFilePath("counter-step-log")
    defer {
      try? FileManager.default.removeItem(atPath: settings)
      try? FileManager.default.removeItem(atPath: log)
    }
    // A step saved by an earlier run.
    _ = try Program.run("counter", input: Data("step 4\n".utf8), environment: environment)
    let recorded = try Program.run(
      "counter", input: Data("+\n+\nstep 2\n-\n".utf8), arguments: ["--record", log],
      environment: environment)
    #expect(recorded.standardOutput == "count: 0\ncount: 4\ncount: 8\nstep: 2\ncount: 6\n")
    // Replayed elsewhere, with no settings file (or another step): the same session.
    let replayed = try Program.run(
      "counter", input: Data(), arguments: ["--replay", log],
      environment: CounterEnvironment.isolated)
    #expect(replayed.standardError.isEmpty)
    #expect(replayed.standardOutput.hasSuffix("count: 4\ncount: 8\nstep: 2\ncount: 6\n"))
    // The replay wrote nothing: the settings still have the step the session left.
    let saved = try JSONDecoder().decode(
      CounterSettings.self, from: #require(FileManager.default.contents(atPath: settings)))
    #expect(saved.step == 2)
  }
}
