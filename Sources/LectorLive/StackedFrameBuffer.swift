import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// The pixels of a stacked frame: the stack's mean as it was after one fold, read out
/// only when somebody reads them.
///
/// Most stacked frames are never read: the mailbox replaces them with the next one, or
/// the change gate skips them. So the mean is not read out when the frame is made. A
/// recognizer that takes the frame reads the mean straight from the stack into its own
/// luma image (``readOut(into:)``) while the stack still holds this frame's mean; before
/// the stack folds the next frame, its stacker ``detach()``es this buffer, which reads
/// the mean out into memory of its own if the frame is still out there (taken, not yet
/// read, not given back). A frame the mailbox replaced unread is given back before the
/// next fold and costs no read-out at all.
///
/// Thread-safe: the stacker's lock guards the stack's mean and this buffer's state.
final class StackedFrameBuffer: GrayReadOutBuffer, @unchecked Sendable {
    // `shared.lock` guards `attached`, `givenBack` and `storage`.
    /// The stack whose mean this is, and the lock its stacker holds while it folds.
    final class Shared: @unchecked Sendable {
        let lock = NSLock()
        let stack: FrameStack

        init(stack: FrameStack) { self.stack = stack }
    }

    private let shared: Shared
    let width: Int
    let height: Int
    /// The stack still holds this frame's mean (no fold since).
    private var attached = true
    private var givenBack = false
    /// The mean read out into memory of the buffer's own (once detached while still
    /// wanted, or once ``bytes`` was asked for).
    private var storage: UnsafeMutableBufferPointer<UInt8>?

    /// A buffer for the mean `shared.stack` holds now; made under `shared.lock`.
    init(shared: Shared) {
        self.shared = shared
        width = shared.stack.width
        height = shared.stack.height
    }

    deinit { storage?.deallocate() }

    var byteCount: Int { width * height }

    /// The mean's pixels, read out into the buffer's own memory on first use.
    var bytes: UnsafeRawBufferPointer {
        shared.lock.lock()
        defer { shared.lock.unlock() }
        return UnsafeRawBufferPointer(ownStorage())
    }

    /// Writes the mean into `image` (resized to the frame's size): straight from the
    /// stack while it still holds this frame's mean, else from the buffer's own copy.
    /// The luma extractor's way for a stacked frame: no copy in between.
    func readOut(into image: inout GrayImage) {
        shared.lock.lock()
        defer { shared.lock.unlock() }
        image.resize(width: width, height: height)
        if let storage {
            image.pixels.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: storage) }
        } else {
            precondition(attached && !givenBack, "a stacked frame read after it was given back")
            shared.stack.mean(into: &image)
        }
    }

    /// Called by the stacker, under `shared.lock`, before the stack folds another frame:
    /// keeps the mean in the buffer's own memory if the frame can still be read.
    func detach() {
        if !givenBack { _ = ownStorage() }
        attached = false
    }

    /// Under `shared.lock`: the buffer's own copy of the mean (`width` × `height`
    /// bytes), read out now if need be.
    private func ownStorage() -> UnsafeMutableBufferPointer<UInt8> {
        if let storage { return storage }
        precondition(attached, "a stacked frame's bytes asked for after it was given back")
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: width * height)
        shared.stack.mean(into: storage)
        self.storage = storage
        return storage
    }

    func giveBack() {
        shared.lock.lock()
        givenBack = true
        shared.lock.unlock()
    }
}
