/// Comparisons whose running time does not depend on where two secrets first differ.
public enum ConstantTime {
    /// True when `a` and `b` hold the same UTF-8 bytes. Time depends only on the lengths.
    public static func equals(_ a: String, _ b: String) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.utf8.count ^ b.utf8.count)
        var ia = a.utf8.makeIterator(), ib = b.utf8.makeIterator()
        // Walk the longer one entirely so a length difference costs no less time.
        for _ in 0..<max(a.utf8.count, b.utf8.count) {
            let x = ia.next() ?? 0, y = ib.next() ?? 0
            difference |= x ^ y
        }
        return difference == 0 && a.utf8.count == b.utf8.count
    }
}
