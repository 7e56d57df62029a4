import Clearance
import Testing

@Suite("ConstantTime") struct ConstantTimeTests {
    @Test func stringsAreEqualOnlyWhenEveryByteIs() {
        #expect(ConstantTime.equals("abc", "abc"))
        #expect(!ConstantTime.equals("abc", "abd"))
        #expect(!ConstantTime.equals("abc", "ab"))
        #expect(!ConstantTime.equals("ab", "abc"))
        #expect(!ConstantTime.equals("abc", "abc\u{0}"))
        #expect(ConstantTime.equals("", ""))
        #expect(ConstantTime.equals("é", "é"))
        #expect(!ConstantTime.equals("é", "e"))
        #expect(!ConstantTime.equals("", "a"))
    }

    @Test func bytesAreEqualOnlyWhenEveryByteIs() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([], [0]))
        let a: [UInt8] = Array(0..<16)
        for position in 0..<16 {
            var b = a
            b[position] ^= 0x80
            #expect(!ConstantTime.equals(a, b), "a difference at byte \(position)")
        }
    }
}
