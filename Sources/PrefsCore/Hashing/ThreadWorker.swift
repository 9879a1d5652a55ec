import CPrefsSystem
import Glibc

/// An object with work for a thread of its own (`OverlappedHasher`, `TreeReader`), which it joins
/// before it goes.
protocol ThreadWorker: AnyObject {
    /// The thread's body: returns when the owner says to stop.
    func work()
}

extension ThreadWorker {
    /// Starts `work()` on a new thread, placed on another CPU when there is one; nil if it cannot
    /// start. The thread holds no reference of its own: one would keep the object alive past its
    /// owner, and its deinit (which joins the thread) would then run on that thread.
    func startThread() -> pthread_t? {
        var thread = pthread_t()
        let context = Unmanaged.passUnretained(self as AnyObject).toOpaque()
        let started = prefs_start_thread_elsewhere(&thread, { context in
            Unmanaged<AnyObject>.fromOpaque(context!)._withUnsafeGuaranteedRef { ($0 as! any ThreadWorker).work() }
            return nil
        }, context)
        return started == 0 ? thread : nil
    }
}
