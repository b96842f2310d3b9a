import Testing
import Unidirectional

/// `StackState.index(id:)`, which tries the top element first: every position and every absent
/// id, against a linear search, over stacks with gaps in their ids.
@Suite struct StackStateIndexTests {
  @Test func indexOfIDMatchesALinearSearchOverRandomPushesAndPops() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      var stack = StackState<Int>()
      #expect(stack.index(id: 0) == nil)
      for step in 0..<40 {
        if stack.isEmpty || Bool.random(using: &generator) || step % 5 == 0 {
          stack.append(step)
        } else if Bool.random(using: &generator) {
          stack.popLast()
        } else {
          stack.pop(from: stack.ids[Int.random(in: 0..<stack.count, using: &generator)])
        }
        let ids = Array(stack.ids)
        let highest = (ids.last.map { Int("\($0)".filter(\.isNumber)) ?? 0 } ?? 0) + 3
        for generation in 0...max(highest, 45) {
          let id = StackElementID(integerLiteral: generation)
          #expect(stack.index(id: id) == ids.firstIndex(of: id), "id \(generation) in \(ids)")
        }
        for (position, id) in ids.enumerated() {
          #expect(stack.index(id: id) == position)
          #expect(stack[id: id] == stack[position])
        }
      }
    }
  }

  @Test func indexOfIDOnSmallStacks() {
    var stack = StackState<String>()
    #expect(stack.index(id: stack.nextID) == nil)
    stack.append("a")
    #expect(stack.index(id: 0) == 0)
    #expect(stack.index(id: 1) == nil)
    stack.popLast()
    #expect(stack.index(id: 0) == nil)
    stack.append("b")
    #expect(stack.index(id: 0) == nil)
    #expect(stack.index(id: 1) == 0)
    stack.append("c")
    #expect(stack.index(id: 0) == nil)
    #expect(stack.index(id: 1) == 0)
    #expect(stack.index(id: 2) == 1)
    #expect(stack.index(id: 3) == nil)
    stack.pop(to: 1)
    #expect(stack.index(id: 2) == nil)
    #expect(stack.index(id: 1) == 0)
  }
}
