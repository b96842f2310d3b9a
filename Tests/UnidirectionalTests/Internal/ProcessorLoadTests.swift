import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

@Suite struct ProcessorLoadTests {
  @Test func readsTheMachinesTicksFromTheFirstLineOfProcStat() {
    // user nice system idle iowait irq softirq steal guest guest_nice
    let line: Substring = "cpu  100 2 30 400 50 0 6 7 90 0"
    let ticks = ProcessorLoad.MachineTicks(procStatLine: line)
    #expect(ticks == ProcessorLoad.MachineTicks(busy: 145, total: 595))
    // Older kernels report fewer fields.
    #expect(
      ProcessorLoad.MachineTicks(procStatLine: "cpu 1 2 3 4")
        == ProcessorLoad.MachineTicks(busy: 6, total: 10))
  }

  @Test func refusesAnythingElse() {
    #expect(ProcessorLoad.MachineTicks(procStatLine: "cpu0 1 2 3 4 5") == nil)
    #expect(ProcessorLoad.MachineTicks(procStatLine: "cpu 1 2 3") == nil)
    #expect(ProcessorLoad.MachineTicks(procStatLine: "cpu 1 2 x 4 5") == nil)
    #expect(ProcessorLoad.MachineTicks(procStatLine: "") == nil)
  }

  @Test func nearlyAllBusyMeansNineTicksInTen() {
    let before = ProcessorLoad.MachineTicks(busy: 1_000, total: 2_000)
    let busy = ProcessorLoad.MachineTicks(busy: 1_009, total: 2_010)
    let notQuite = ProcessorLoad.MachineTicks(busy: 1_008, total: 2_010)
    #expect(ProcessorLoad.isNearlyAllBusy(from: before, to: busy))
    #expect(!ProcessorLoad.isNearlyAllBusy(from: before, to: notQuite))
    // No tick between the readings tells nothing: not busy.
    #expect(!ProcessorLoad.isNearlyAllBusy(from: before, to: before))
  }

  @Test func aComputingThreadMakesAStretchBusy() {
    let start = ProcessorLoad.sample()
    let end = ContinuousClock.now.advanced(by: .milliseconds(30))
    while ContinuousClock.now < end {}
    #expect(ProcessorLoad.wasBusy(since: start))
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/stat")))
  func otherProcessesSpinningMakeTheMachineNearlyAllBusy() async throws {
    let (before, after) = try await SpinningProcesses.run {
      // Let the spinners start, then read over a stretch of 200 ms.
      try await Task.sleep(for: .milliseconds(50))
      let before = ProcessorLoad.machineTicks()
      try await Task.sleep(for: .milliseconds(200))
      return (before, ProcessorLoad.machineTicks())
    }
    let start = try #require(before)
    let end = try #require(after)
    #expect(ProcessorLoad.isNearlyAllBusy(from: start, to: end), "\(start) → \(end)")
  }
}
