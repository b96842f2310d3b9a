// shared-file-counter: a program for the tests of a file-backed shared value across processes
// (issue 37). It uses the live storage, on disk, as a program would.
//
//   shared-file-counter increment PATH N [--progress K] [--start-on-input]
//     Opens `Shared(.file(PATH), default: 0)`, prints `loaded V`, increments it N times with
//     `withLock`, printing the count of increments done every K of them, waits for its saves,
//     and prints `done V` (its value at the end). Each completed save prints `saved V`, once the
//     file is renamed into place. With --start-on-input it reads a line from standard input
//     before incrementing, so that a test can start two at one moment.
//   shared-file-counter watch PATH N
//     Opens the same value in a store that receives its changes, prints `watching`, then each
//     value the store's observer reads, and exits once it reads N or more.
//
// Lines are written unbuffered: a test reads them while the program runs.

import Foundation
import Unidirectional

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("shared-file-counter: \(message)\n".utf8))
  exit(2)
}

/// `.file(path)`, saying `saved V` after each save it completes: what the tests of "the last
/// completed save wins" compare the file with, and the moments the crash test kills it at.
struct SaveReportingKey: SharedKey {
  let file: FileKey<Int>

  var id: String { file.id }

  func load(from storage: SharedStorage) throws -> Int? {
    try file.load(from: storage)
  }

  func save(_ value: Int, to storage: SharedStorage) throws {
    try file.save(value, to: storage)
    say("saved \(value)")
  }

  func watch(
    in storage: SharedStorage, onChange: @escaping @Sendable (Result<Int, any Error>) -> Void
  ) -> ObservationToken? {
    file.watch(in: storage, onChange: onChange)
  }
}

/// A store's state holding the count, for `watch`.
struct CountState: Sendable {
  var count: Shared<Int>
}

enum CountAction: Sendable {
  case countChanged(SharedChange<Int>)
}

func increment(path: String, times: Int, progress: Int?, startOnInput: Bool) -> Never {
  var count = Shared(SaveReportingKey(file: .file(path)), default: 0)
  say("loaded \(count.value)")
  if startOnInput, readLine() == nil { fail("standard input closed before the start") }
  for done in stride(from: 1, through: times, by: 1) {
    count.withLock { $0 += 1 }
    if let progress, done.isMultiple(of: progress) { say("\(done)") }
  }
  SharedStorage.live.waitForSaves()
  say("done \(count.value)")
  exit(0)
}

func watch(path: String, until target: Int) -> Never {
  let store = Store(initialState: CountState(count: Shared(.file(path), default: 0))) {
    Reduce<CountState, CountAction> { _, _ in .none }
      .receivingShared(\.count, action: .case(CountAction.countChanged))
  }
  let reached = DispatchSemaphore(value: 0)
  let token = store.observe {
    let value = store.count.value
    say("\(value)")
    if value >= target { reached.signal() }
  }
  say("watching")
  // wall-clock: a failure bound, so that the program stops by itself; the last save arrives
  // within milliseconds.
  guard reached.wait(timeout: .now() + 60) == .success else {
    fail("did not see \(target) within 60 seconds")
  }
  withExtendedLifetime(token) {}
  exit(0)
}

var arguments = CommandLine.arguments.dropFirst()
guard let mode = arguments.popFirst(), let path = arguments.popFirst(),
  let count = arguments.popFirst().flatMap({ Int($0) }), count >= 0
else {
  fail("usage: shared-file-counter increment|watch PATH N [--progress K] [--start-on-input]")
}
var progress: Int?
var startOnInput = false
while let option = arguments.popFirst() {
  switch option {
  case "--progress":
    guard let every = arguments.popFirst().flatMap({ Int($0) }), every > 0 else {
      fail("--progress needs a positive count")
    }
    progress = every
  case "--start-on-input": startOnInput = true
  default: fail("unknown option \(option)")
  }
}
switch mode {
case "increment":
  increment(path: path, times: count, progress: progress, startOnInput: startOnInput)
case "watch": watch(path: path, until: count)
default: fail("unknown mode \(mode): increment or watch")
}
