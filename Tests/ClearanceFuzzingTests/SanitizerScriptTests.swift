import ClearanceTestSupport
import Foundation
import Testing

/// The sanitizer scripts as CI runs them: `scripts/check-suppressions` refuses patterns that
/// cannot match, and `scripts/sanitizer-summary` sums each suppression's count over every
/// sanitized process of a run and fails it when one reported.
@Suite("Sanitizer scripts")
struct SanitizerScriptTests {
    private static func run(_ script: String, _ arguments: [String]) async throws -> ChildProcess.Output {
        let path = try PackageRoot.url().appendingPathComponent("scripts/\(script)").path
        return try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [path] + arguments, timeout: .seconds(30))
    }

    /// Runs `body` with a suppression file named `name` holding `text` and an empty directory for
    /// sanitizer logs, both removed afterwards.
    private static func withLogs(suppressions name: String, _ text: String, _ body: (URL, URL) async throws -> Void) async throws {
        try await TemporaryDirectory.with { directory in
            let supp = directory.appendingPathComponent(name)
            try text.write(to: supp, atomically: true, encoding: .utf8)
            let logs = directory.appendingPathComponent("logs")
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
            try await body(supp, logs)
        }
    }

    @Test func theCommittedSuppressionFilesPass() async throws {
        let directory = try PackageRoot.url().appendingPathComponent("scripts/sanitize-suppressions")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".supp") }
        #expect(files.contains("thread.supp") && files.contains("leak.supp") && files.contains("address.supp"))
        let output = try await Self.run("check-suppressions", files.map { directory.appendingPathComponent($0).path })
        #expect(output.status == 0, "\(output.stderr)")
    }

    @Test(arguments: [
        ("race:$s7NIOCore28NIOPooledRecvBufferAllocatorV014_reuseExistingD0*", "starts with $"),
        ("race:NIOCore$Allocator", "other than as anchors"),
        ("race:^NIO^Core", "other than as anchors"),
        ("leak:", "empty pattern"),
        ("just a name", "is not type:pattern"),
    ])
    func patternsThatCannotMatchAreRefusedWithTheirLine(_ line: String, _ message: String) async throws {
        try await TemporaryDirectory.with { directory in
            let file = directory.appendingPathComponent("bad.supp")
            try "# a comment\n\nrace:fine_function*\n\(line)\n".write(to: file, atomically: true, encoding: .utf8)
            let output = try await Self.run("check-suppressions", [file.path])
            #expect(output.status == 1)
            #expect(output.stderr.contains("bad.supp:4:"), "\(output.stderr)")
            #expect(output.stderr.contains(message), "\(output.stderr)")
        }
    }

    @Test func anchorsAtTheEndsAreAccepted() async throws {
        try await TemporaryDirectory.with { directory in
            let file = directory.appendingPathComponent("good.supp")
            try "race:^s7NIOCore*\nrace:reuseExisting$\nleak:libcurl.so\n".write(to: file, atomically: true, encoding: .utf8)
            let output = try await Self.run("check-suppressions", [file.path])
            #expect(output.status == 0, "\(output.stderr)")
        }
    }

    @Test func theSummarySumsEachSuppressionOverEveryProcessAndFailsOnAReport() async throws {
        try await Self.withLogs(suppressions: "thread.supp", "# why\nrace:first_function*\nrace:second_function*\nrace:never_matched\n") { supp, logs in
            // What ThreadSanitizer writes at exit with print_suppressions=1, in two processes.
            try "ThreadSanitizer: Matched 2 suppressions (pid=10):\n3 race:first_function*\n1 race:second_function*\n"
                .write(to: logs.appendingPathComponent("report.10"), atomically: true, encoding: .utf8)
            try "ThreadSanitizer: Matched 1 suppressions (pid=11):\n4 race:first_function*\n"
                .write(to: logs.appendingPathComponent("report.11"), atomically: true, encoding: .utf8)
            var output = try await Self.run("sanitizer-summary", [logs.path, supp.path])
            #expect(output.status == 0, "\(output.stdout)")
            let counts = output.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
            #expect(counts.contains { $0.first == "7" && $0.dropFirst().first == "race:first_function*" }, "\(output.stdout)")
            #expect(counts.contains { $0.first == "1" && $0.dropFirst().first == "race:second_function*" }, "\(output.stdout)")
            #expect(counts.contains { $0.first == "0" && $0.dropFirst().first == "race:never_matched" }, "\(output.stdout)")

            // A report in any process fails the run, and is printed whole.
            try """
            ==================
            WARNING: ThreadSanitizer: data race (pid=12)
              Write of size 8 by thread T1:
                #0 $s7NIOCore10ByteBufferV5write (libNIOCore.so+0x1) /x/.build/checkouts/swift-nio/Sources/NIOCore/ByteBuffer.swift:10:2
                #1 $s15ClearanceServer4SinkC5write /work/main/Sources/ClearanceServer/Hub/Sink.swift:42:7
            SUMMARY: ThreadSanitizer: data race /x/ByteBuffer.swift:10:2 in write

            """.write(to: logs.appendingPathComponent("report.12"), atomically: true, encoding: .utf8)
            output = try await Self.run("sanitizer-summary", [logs.path, supp.path])
            #expect(output.status == 1)
            #expect(output.stdout.contains("== sanitizer report in report.12") && output.stdout.contains("Write of size 8 by thread T1"), "\(output.stdout)")
            // Its headline, summary and first frame of ours come again at the end, after the counts
            // (a log read from its tail still shows them).
            let tail = try #require(output.stdout.components(separatedBy: "== reports swallowed by each suppression").last)
            #expect(tail.contains("report.12: WARNING: ThreadSanitizer: data race (pid=12)"), "\(tail)")
            #expect(tail.contains("SUMMARY: ThreadSanitizer: data race"), "\(tail)")
            #expect(tail.contains("first frame in this package: /work/main/Sources/ClearanceServer/Hub/Sink.swift:42:7"), "\(tail)")
        }
    }

    /// AddressSanitizer swallows a suppressed report without counting it: its suppressions are
    /// listed with n/a, never with a 0 that would read as "matched nothing, remove it".
    @Test func addressSanitizerSuppressionsAreListedWithoutACount() async throws {
        try await Self.withLogs(suppressions: "address.supp", "# why\ninterceptor_via_fun:Foundation29findMaximumOpenFromProcSelfFD\n") { supp, logs in
            var output = try await Self.run("sanitizer-summary", [logs.path, supp.path])
            #expect(output.status == 0, "\(output.stdout)")
            #expect(output.stdout.contains("n/a  interceptor_via_fun:Foundation29findMaximumOpenFromProcSelfFD  (address.supp)"), "\(output.stdout)")

            // An AddressSanitizer report fails the run.
            try "=================================================================\n==30==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\nSUMMARY: AddressSanitizer: heap-buffer-overflow\n"
                .write(to: logs.appendingPathComponent("report.30"), atomically: true, encoding: .utf8)
            output = try await Self.run("sanitizer-summary", [logs.path, supp.path])
            #expect(output.status == 1)
            #expect(output.stdout.contains("== sanitizer report in report.30"), "\(output.stdout)")
            let tail = try #require(output.stdout.components(separatedBy: "== reports swallowed by each suppression").last)
            #expect(tail.contains("report.30: ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1"), "\(tail)")
            #expect(tail.contains("first frame in this package: none"), "\(tail)")
        }
    }

    @Test func leakSanitizerCountsAreReadToo() async throws {
        try await Self.withLogs(suppressions: "leak.supp", "leak:libcurl.so\nleak:swift::RefCounts*::formWeakReference\n") { supp, logs in
            try """
            -----------------------------------------------------
            Suppressions used:
              count      bytes template
                171       2894 libcurl.so
                 14        448 swift::RefCounts*::formWeakReference
            -----------------------------------------------------

            """.write(to: logs.appendingPathComponent("report.20"), atomically: true, encoding: .utf8)
            let output = try await Self.run("sanitizer-summary", [logs.path, supp.path])
            #expect(output.status == 0, "\(output.stdout)")
            #expect(output.stdout.contains("171  leak:libcurl.so"), "\(output.stdout)")
            #expect(output.stdout.contains("14  leak:swift::RefCounts*::formWeakReference"), "\(output.stdout)")
        }
    }
}
