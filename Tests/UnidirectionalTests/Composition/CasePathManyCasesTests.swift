// Over 300 lines on purpose: the enum needs more than 64 cases (tags past 64), the table one
// value for each, and each of the 13 cases checked its own written-out loop.

import Foundation
import Testing

@testable import Unidirectional

struct ManyCasesPayload: Equatable, Sendable {
  var a: Int
  var b: Int
}

/// Case paths over enums where several cases share a payload type and tags go past 64: the tag
/// test made inline (`tagsWithPayload` below 64, the out-of-line check past it) and the payload
/// taken out of line must extract exactly their own case.
@Suite struct CasePathManyCasesTests {
  enum Wide: Sendable {
    case c0(Int)
    case c1(String)
    case c2(ManyCasesPayload)
    case c3(Int)
    case c4(String)
    case c5(ManyCasesPayload)
    case c6(Int)
    case c7(String)
    case c8(ManyCasesPayload)
    case c9(Int)
    case c10(String)
    case c11(ManyCasesPayload)
    case c12(Int)
    case c13(String)
    case c14(ManyCasesPayload)
    case c15(Int)
    case c16(String)
    case c17(ManyCasesPayload)
    case c18(Int)
    case c19(String)
    case c20(ManyCasesPayload)
    case c21(Int)
    case c22(String)
    case c23(ManyCasesPayload)
    case c24(Int)
    case c25(String)
    case c26(ManyCasesPayload)
    case c27(Int)
    case c28(String)
    case c29(ManyCasesPayload)
    case c30(Int)
    case c31(String)
    case c32(ManyCasesPayload)
    case c33(Int)
    case c34(String)
    case c35(ManyCasesPayload)
    case c36(Int)
    case c37(String)
    case c38(ManyCasesPayload)
    case c39(Int)
    case c40(String)
    case c41(ManyCasesPayload)
    case c42(Int)
    case c43(String)
    case c44(ManyCasesPayload)
    case c45(Int)
    case c46(String)
    case c47(ManyCasesPayload)
    case c48(Int)
    case c49(String)
    case c50(ManyCasesPayload)
    case c51(Int)
    case c52(String)
    case c53(ManyCasesPayload)
    case c54(Int)
    case c55(String)
    case c56(ManyCasesPayload)
    case c57(Int)
    case c58(String)
    case c59(ManyCasesPayload)
    case c60(Int)
    case c61(String)
    case c62(ManyCasesPayload)
    case c63(Int)
    case c64(String)
    case c65(ManyCasesPayload)
    case c66(Int)
    case c67(String)
    case c68(ManyCasesPayload)
    case c69(Int)
    case n0
    case n1
    case n2
    case n3
    case n4
    case n5
  }

  static let allValues: [(Wide, Int)] = [
    (Wide.c0(0), 0),
    (Wide.c1("s1"), 1),
    (Wide.c2(ManyCasesPayload(a: 2, b: 14)), 2),
    (Wide.c3(3), 3),
    (Wide.c4("s4"), 4),
    (Wide.c5(ManyCasesPayload(a: 5, b: 35)), 5),
    (Wide.c6(6), 6),
    (Wide.c7("s7"), 7),
    (Wide.c8(ManyCasesPayload(a: 8, b: 56)), 8),
    (Wide.c9(9), 9),
    (Wide.c10("s10"), 10),
    (Wide.c11(ManyCasesPayload(a: 11, b: 77)), 11),
    (Wide.c12(12), 12),
    (Wide.c13("s13"), 13),
    (Wide.c14(ManyCasesPayload(a: 14, b: 98)), 14),
    (Wide.c15(15), 15),
    (Wide.c16("s16"), 16),
    (Wide.c17(ManyCasesPayload(a: 17, b: 119)), 17),
    (Wide.c18(18), 18),
    (Wide.c19("s19"), 19),
    (Wide.c20(ManyCasesPayload(a: 20, b: 140)), 20),
    (Wide.c21(21), 21),
    (Wide.c22("s22"), 22),
    (Wide.c23(ManyCasesPayload(a: 23, b: 161)), 23),
    (Wide.c24(24), 24),
    (Wide.c25("s25"), 25),
    (Wide.c26(ManyCasesPayload(a: 26, b: 182)), 26),
    (Wide.c27(27), 27),
    (Wide.c28("s28"), 28),
    (Wide.c29(ManyCasesPayload(a: 29, b: 203)), 29),
    (Wide.c30(30), 30),
    (Wide.c31("s31"), 31),
    (Wide.c32(ManyCasesPayload(a: 32, b: 224)), 32),
    (Wide.c33(33), 33),
    (Wide.c34("s34"), 34),
    (Wide.c35(ManyCasesPayload(a: 35, b: 245)), 35),
    (Wide.c36(36), 36),
    (Wide.c37("s37"), 37),
    (Wide.c38(ManyCasesPayload(a: 38, b: 266)), 38),
    (Wide.c39(39), 39),
    (Wide.c40("s40"), 40),
    (Wide.c41(ManyCasesPayload(a: 41, b: 287)), 41),
    (Wide.c42(42), 42),
    (Wide.c43("s43"), 43),
    (Wide.c44(ManyCasesPayload(a: 44, b: 308)), 44),
    (Wide.c45(45), 45),
    (Wide.c46("s46"), 46),
    (Wide.c47(ManyCasesPayload(a: 47, b: 329)), 47),
    (Wide.c48(48), 48),
    (Wide.c49("s49"), 49),
    (Wide.c50(ManyCasesPayload(a: 50, b: 350)), 50),
    (Wide.c51(51), 51),
    (Wide.c52("s52"), 52),
    (Wide.c53(ManyCasesPayload(a: 53, b: 371)), 53),
    (Wide.c54(54), 54),
    (Wide.c55("s55"), 55),
    (Wide.c56(ManyCasesPayload(a: 56, b: 392)), 56),
    (Wide.c57(57), 57),
    (Wide.c58("s58"), 58),
    (Wide.c59(ManyCasesPayload(a: 59, b: 413)), 59),
    (Wide.c60(60), 60),
    (Wide.c61("s61"), 61),
    (Wide.c62(ManyCasesPayload(a: 62, b: 434)), 62),
    (Wide.c63(63), 63),
    (Wide.c64("s64"), 64),
    (Wide.c65(ManyCasesPayload(a: 65, b: 455)), 65),
    (Wide.c66(66), 66),
    (Wide.c67("s67"), 67),
    (Wide.c68(ManyCasesPayload(a: 68, b: 476)), 68),
    (Wide.c69(69), 69),
    (Wide.n0, 100),
    (Wide.n1, 101),
    (Wide.n2, 102),
    (Wide.n3, 103),
    (Wide.n4, 104),
    (Wide.n5, 105),
  ]

  @Test func wideEnumWithSharedPayloadTypesExtractsOnlyItsOwnCase() {
    do {
      let path = CasePath<Wide, Int>(Wide.c0)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 0 {
          #expect(extracted == 0, "case c0 from its own value")
        } else {
          #expect(extracted == nil, "case c0 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, String>(Wide.c1)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 1 {
          #expect(extracted == "s1", "case c1 from its own value")
        } else {
          #expect(extracted == nil, "case c1 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, ManyCasesPayload>(Wide.c2)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 2 {
          #expect(extracted == ManyCasesPayload(a: 2, b: 14), "case c2 from its own value")
        } else {
          #expect(extracted == nil, "case c2 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, Int>(Wide.c3)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 3 {
          #expect(extracted == 3, "case c3 from its own value")
        } else {
          #expect(extracted == nil, "case c3 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, String>(Wide.c61)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 61 {
          #expect(extracted == "s61", "case c61 from its own value")
        } else {
          #expect(extracted == nil, "case c61 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, ManyCasesPayload>(Wide.c62)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 62 {
          #expect(extracted == ManyCasesPayload(a: 62, b: 434), "case c62 from its own value")
        } else {
          #expect(extracted == nil, "case c62 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, Int>(Wide.c63)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 63 {
          #expect(extracted == 63, "case c63 from its own value")
        } else {
          #expect(extracted == nil, "case c63 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, String>(Wide.c64)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 64 {
          #expect(extracted == "s64", "case c64 from its own value")
        } else {
          #expect(extracted == nil, "case c64 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, ManyCasesPayload>(Wide.c65)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 65 {
          #expect(extracted == ManyCasesPayload(a: 65, b: 455), "case c65 from its own value")
        } else {
          #expect(extracted == nil, "case c65 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, Int>(Wide.c66)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 66 {
          #expect(extracted == 66, "case c66 from its own value")
        } else {
          #expect(extracted == nil, "case c66 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, String>(Wide.c67)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 67 {
          #expect(extracted == "s67", "case c67 from its own value")
        } else {
          #expect(extracted == nil, "case c67 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, ManyCasesPayload>(Wide.c68)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 68 {
          #expect(extracted == ManyCasesPayload(a: 68, b: 476), "case c68 from its own value")
        } else {
          #expect(extracted == nil, "case c68 from case \(index)")
        }
      }
    }
    do {
      let path = CasePath<Wide, Int>(Wide.c69)
      for (value, index) in Self.allValues {
        let extracted = path.extract(value)
        if index == 69 {
          #expect(extracted == 69, "case c69 from its own value")
        } else {
          #expect(extracted == nil, "case c69 from case \(index)")
        }
      }
    }
  }

  /// Many case paths made at once from several threads (the first-slot look-up is inlined).
  @Test func casePathsMadeFromManyThreadsAgree() async {
    await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<8 {
        group.addTask {
          var ok = true
          for _ in 0..<200 {
            ok = ok && CasePath<Wide, Int>(Wide.c66).extract(.c66(5)) == 5
            ok = ok && CasePath<Wide, Int>(Wide.c66).extract(.c63(5)) == nil
            ok = ok && CasePath<Wide, String>(Wide.c67).extract(.c1("x")) == nil
            ok = ok && CasePath<Wide, String>(Wide.c67).extract(.n5) == nil
          }
          return ok
        }
      }
      for await ok in group { #expect(ok) }
    }
  }
}
