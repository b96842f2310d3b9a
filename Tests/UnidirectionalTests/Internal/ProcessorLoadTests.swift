import Testing

@testable import Unidirectional

// Nothing here measures a stretch of real time and expects it busy: on a shared machine, other
// processes can hold a computing thread off the processors for any part of it (CI did).
@Suite struct ProcessorLoadTests {
  @Test func halfAProcessorOrMoreIsBusy() {
    let window = Duration.milliseconds(50)
    #expect(ProcessorLoad.isBusy(processTimeUsed: .milliseconds(25), over: window))
    #expect(ProcessorLoad.isBusy(processTimeUsed: .milliseconds(100), over: window))
    #expect(!ProcessorLoad.isBusy(processTimeUsed: .milliseconds(24), over: window))
    #expect(!ProcessorLoad.isBusy(processTimeUsed: .zero, over: window))
  }

  @Test func aStretchIsJudgedOnTheProcessTimeBetweenItsSamples() {
    let wall = ContinuousClock.now
    func sample(after elapsed: Duration, processTime: Duration?) -> ProcessorLoad.Sample {
      ProcessorLoad.Sample(wall: wall.advanced(by: elapsed), processTime: processTime)
    }
    let start = sample(after: .zero, processTime: .seconds(7))
    let computing = sample(after: .milliseconds(50), processTime: .seconds(7) + .milliseconds(30))
    let waiting = sample(after: .milliseconds(50), processTime: .seconds(7) + .milliseconds(5))
    #expect(ProcessorLoad.wasBusy(from: start, to: computing))
    #expect(!ProcessorLoad.wasBusy(from: start, to: waiting))
    // A failed reading at either end counts as idle, so the wait ends as it would without one.
    #expect(!ProcessorLoad.wasBusy(from: sample(after: .zero, processTime: nil), to: computing))
    #expect(
      !ProcessorLoad.wasBusy(from: start, to: sample(after: .milliseconds(50), processTime: nil)))
  }

  @Test func theProcessTimeGrowsWhileAThreadComputes() throws {
    let before = try #require(ProcessorLoad.processTime())
    // Bounded in wall time, so a broken reading fails the test instead of spinning forever.
    let giveUp = ContinuousClock.now.advanced(by: .seconds(10))
    var used = Duration.zero
    while used < .milliseconds(30), ContinuousClock.now < giveUp {
      used = (ProcessorLoad.processTime() ?? before) - before
    }
    #expect(used >= .milliseconds(30))
    #expect(ProcessorLoad.sample().processTime != nil)
  }
}
