import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// A one-slot hand-off between a capture loop and a recognizer: a new frame replaces an
/// unconsumed one, so the recognizer always gets the newest frame and results are never
/// stale (the Linux counterpart of AVFoundation's `alwaysDiscardsLateVideoFrames`).
///
/// A replaced frame is given back to its source at once (a driver buffer is queued
/// again) and reported as dropped. Frames are borrowed, never copied.
public final class LatestFrameMailbox: @unchecked Sendable {
    // `condition` guards every stored property below.
    private let condition = NSCondition()
    private var slot: Frame?
    private var closed = false

    public init() {}

    /// Puts `frame` in the slot, replacing (and giving back) any unconsumed one.
    /// - Returns: true when a frame was replaced, i.e. dropped. A closed mailbox gives
    ///   `frame` back at once and also returns true.
    @discardableResult
    public func post(_ frame: Frame) -> Bool {
        condition.lock()
        if closed {
            condition.unlock()
            frame.giveBack()
            return true
        }
        let replaced = slot
        slot = frame
        condition.signal()
        condition.unlock()
        replaced?.giveBack()
        return replaced != nil
    }

    /// Waits for a frame and takes it; nil once the mailbox is closed. The caller owns
    /// the frame and must give it back.
    public func take() -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        while slot == nil && !closed { condition.wait() }
        guard !closed, let frame = slot else { return nil }
        slot = nil
        condition.broadcast()  // wakes waitUntilEmpty
        return frame
    }

    /// Takes the waiting frame, if any, without waiting. The capture side of a stack
    /// withdraws its previous mean this way before the stack changes: a mean nobody took
    /// is then never read out. The caller owns the frame and must give it back.
    public func takeIfWaiting() -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        guard let frame = slot else { return nil }
        slot = nil
        condition.broadcast()  // wakes waitUntilEmpty
        return frame
    }

    /// Runs `body` on the waiting frame without taking it (it stays for the recognizer),
    /// under the mailbox's lock: `body` must be short (a luma copy) and must not give the
    /// frame back. Codes are read this way beside a text read in progress.
    /// - Returns: what `body` returned; nil when no frame is waiting.
    public func withWaitingFrame<T>(_ body: (Frame) -> T?) -> T? {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, let frame = slot else { return nil }
        return body(frame)
    }

    /// Waits until the slot is empty (the recognizer took the last frame) or the
    /// mailbox is closed. Lets a replay source go at the recognizer's pace, losslessly.
    /// - Returns: false when the mailbox closed.
    public func waitUntilEmpty() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while slot != nil && !closed { condition.wait() }
        return !closed
    }

    /// Whether a frame is waiting.
    public var isOccupied: Bool {
        condition.lock()
        defer { condition.unlock() }
        return slot != nil
    }

    /// Closes the mailbox: waiters wake, a waiting frame is given back.
    /// - Returns: true when a frame was waiting (it counts as dropped).
    @discardableResult
    public func close() -> Bool {
        condition.lock()
        let left = slot
        slot = nil
        closed = true
        condition.broadcast()
        condition.unlock()
        left?.giveBack()
        return left != nil
    }

    /// Opens a closed mailbox again (a camera that restarts).
    public func reopen() {
        condition.lock()
        closed = false
        condition.unlock()
    }
}
