// Evidence for thread.supp: ThreadSanitizer does not see a value handed from one thread to a
// task through a continuation on this toolchain (Swift 6.3.1, Linux).
//
//   swiftc -parse-as-library -sanitize=thread -g continuation-handoff.swift -o /tmp/handoff
//   TSAN_OPTIONS=halt_on_error=0 /tmp/handoff
//
// A thread (as a NIO event loop does) builds an object, waits until the task has surely
// suspended, and resumes the task's continuation with it; the task reads it. The write happens
// before the resume and the read after the task resumed, so there is no race, yet TSan reports
// "data race" between the object's initializer (write, thread T1) and the read (the task). It is
// the shape of NIO's NIOThrowingAsyncSequenceProducer: the element is produced on the event
// loop and handed to the waiting consumer by `continuation.resume(returning:)` outside its lock.
// Handing the same object over by creating a Task instead (`Task.detached { … }.value`) is seen
// (no report): the runtime tells TSan about task creation, not about continuation resumption.
import Foundation

final class Storage: @unchecked Sendable {
    var data: [UInt8]
    init(_ data: [UInt8]) { self.data = data }
}

@main struct ContinuationHandoff {
    static func main() async {
        var total = 0
        for i in 0..<200 {
            let storage: Storage = await withUnsafeContinuation { continuation in
                Thread {
                    let made = Storage([UInt8(i % 256)])
                    Thread.sleep(forTimeInterval: 0.002)  // the task has suspended by now
                    continuation.resume(returning: made)
                }.start()
            }
            total += Int(storage.data[0])
        }
        print(total)
    }
}
