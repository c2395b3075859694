import Dispatch

/// Writes full output blocks on a thread of its own, so that the kernel's copy of one block into the
/// file (a third of a month's replay) runs on a second core while the caller fills the next block.
///
/// One block is written at a time: ``write(_:to:)`` first waits until the previous block's write
/// has ended, so the caller may refill that block as soon as the call returns. ``finish()`` waits
/// for the last write.
final class BlockWriter: @unchecked Sendable {
    // Unchecked: the queue runs one write at a time, and the caller touches neither a block in
    // flight nor its output until `write` or `finish` returned (the semaphore orders them).
    private let queue = DispatchQueue(label: "bracelet.block-writer")
    private let idle = DispatchSemaphore(value: 1)

    /// Starts writing `bytes` to `output` once the previous write has ended, and returns.
    func write(_ bytes: UnsafeRawBufferPointer, to output: TextOutput) {
        idle.wait()
        let job = Job(bytes: bytes, output: output)
        queue.async { [idle] in
            job.output.write(raw: job.bytes)
            idle.signal()
        }
    }

    /// Returns when every write has ended.
    func finish() {
        idle.wait()
        idle.signal()
    }

    /// A block and where it goes, handed to the writer's thread.
    private struct Job: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
        let output: TextOutput
    }
}
