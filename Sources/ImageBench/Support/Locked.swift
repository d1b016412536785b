import NIOConcurrencyHelpers

/// A value guarded by a lock, for state that workers and the main loop share.
///
/// This is NIO's pthread-mutex box rather than `Synchronization.Mutex`: on Linux the Mutex's
/// contended path waits on a futex inside the uninstrumented runtime, which ThreadSanitizer cannot
/// see, so it reports races that are not there and would hide the ones that are.
typealias Locked<Value> = NIOLockedValueBox<Value>
