import BraceletProtocol
import BraceletSimulator
import BraceletTransport
import Foundation
import Synchronization
import Testing

/// A stop request (SIGINT/SIGTERM in listen, a stopping gateway) ends a file read at the next
/// packet instead of at the end of the read: on a slow bracelet one read of 10 000 bytes takes
/// seconds, longer than listen may take to end.
@Suite("A stop request ends a read at the next packet")
struct StopMidReadTests {
    @Test func aStopMidReadEndsTheSessionBeforeTheReadIsWhole() throws {
        // 100 ms before every data packet: a 10 000-byte read is some 60 packets, 6 s.
        let served = try ServedBracelet(faults: ["slow:100"])
        let stop = Atomic<Bool>(false)
        var configuration = served.configuration()
        configuration.shouldStop = { stop.load(ordering: .relaxed) }
        var started = 0
        let session = BraceletSession(connector: UnixSocketConnector(path: served.path), sink: LoggingSink(log: served.log),
                                      configuration: configuration) { event in
            guard case .transferStarted = event else { return }
            started += 1
            // A few packets into the first read.
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.4)
                stop.store(true, ordering: .relaxed)
            }
        }
        let report = try session.run()
        #expect(started == 1)
        #expect(report.bytesReceived > 0, "the stop came after the read began")
        #expect(report.bytesReceived < Int(Command.maximumReadLength), "the session waited for the whole read: \(report.bytesReceived) bytes")
        #expect(!report.syncCompleted)
        // Nothing committed, so nothing erased.
        #expect(served.log.commits.isEmpty && served.log.erases.isEmpty)
    }
}
