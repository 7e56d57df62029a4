// Evidence for address.supp: Foundation's Process.run() reads past glibc's directory buffer when
// it scans /proc/self/fd (Swift 6.3.1, Linux; fixed upstream by
// swiftlang/swift-corelibs-foundation#5472, not in this toolchain).
//
//   swiftc -sanitize=address -g process-run-fd-scan.swift -o /tmp/fd-scan
//   ulimit -n 20000
//   ASAN_OPTIONS=detect_leaks=0 /tmp/fd-scan
//       heap-buffer-overflow … READ of size 256 … in findMaximumOpenFromProcSelfFD, within a second
//   ASAN_OPTIONS="detect_leaks=0 suppressions=$PWD/../address.supp" /tmp/fd-scan
//       "done": every child started, no report
//
// The program opens descriptors one by one and starts a child every few: once /proc/self/fd
// lists enough entries to fill glibc's 32 KB readdir buffer, an entry lands near its end, and
// Process copies that entry's d_name as the whole 256-byte field (the record is only d_reclen
// bytes long), reading past the buffer. Clearance's code never reads that buffer.
import Foundation

var descriptors: [Int32] = []
for round in 0..<3_000 {
    descriptors.append(open("/dev/null", O_RDONLY))
    guard round % 7 == 0 else { continue }
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/true")
    do {
        try child.run()
    } catch {
        print("could not start /bin/true: \(error)")
        exit(1)
    }
    child.waitUntilExit()
}
print("done: \(descriptors.count) descriptors, \(3_000 / 7 + 1) children")
