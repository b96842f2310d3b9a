import Testing

@testable import Unidirectional

@Suite struct ProcessorLoadTests {
  @Test func halfAProcessorOrMoreIsBusy() {
    let window = Duration.milliseconds(50)
    #expect(ProcessorLoad.isBusy(processTimeUsed: .milliseconds(25), over: window))
    #expect(ProcessorLoad.isBusy(processTimeUsed: .milliseconds(100), over: window))
    #expect(!ProcessorLoad.isBusy(processTimeUsed: .milliseconds(24), over: window))
    #expect(!ProcessorLoad.isBusy(processTimeUsed: .zero, over: window))
  }

  @Test func aComputingThreadMakesAStretchBusy() {
    let start = ProcessorLoad.sample()
    let end = ContinuousClock.now.advanced(by: .milliseconds(30))
    while ContinuousClock.now < end {}
    #expect(ProcessorLoad.wasBusy(since: start))
  }
}
