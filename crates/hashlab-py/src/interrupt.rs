//! Ctrl-C while Rust hashes: Python's own SIGINT handler only notes the
//! signal, and the interpreter acts on it (raises KeyboardInterrupt) when
//! Python code runs again, which a 30 GiB file keeps from happening for
//! minutes. So on the main thread the work runs on a second thread while
//! this one, holding the GIL a moment every tenth of a second, lets Python
//! run its signal handlers; an exception they raise cancels the work and is
//! raised once the work has stopped.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use hashlab_integrity::Cancel;
use pyo3::prelude::*;

/// How often the main thread looks for a signal while the work runs.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// Runs `work` with the GIL released; on Python's main thread, where `long`
/// says it may take a while, a signal handler's exception (KeyboardInterrupt)
/// sets `cancel` and is returned after `work` returns. Elsewhere Python runs
/// no signal handlers, and a short `work` is not worth a thread (a hundred
/// microseconds on a busy machine, against ten for hashing a small file),
/// so `work` just runs on this thread.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: &Cancel,
    long: bool,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    if !long || !on_main_thread(py)? {
        return Ok(py.detach(work));
    }
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            // Set even if `work` panics, so the wait below ends.
            struct Done<'a>(&'a (Mutex<bool>, Condvar));
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    let (finished, woken) = self.0;
                    *finished.lock().unwrap_or_else(|p| p.into_inner()) = true;
                    woken.notify_all();
                }
            }
            let _done = Done(&done);
            work()
        });
        let mut raised = None;
        loop {
            let finished = py.detach(|| {
                let (finished, woken) = &done;
                let guard = finished.lock().unwrap_or_else(|p| p.into_inner());
                let (guard, _) = woken
                    .wait_timeout_while(guard, SIGNAL_CHECK, |finished| !*finished)
                    .unwrap_or_else(|p| p.into_inner());
                *guard
            });
            if finished {
                break;
            }
            if raised.is_none() {
                if let Err(e) = py.check_signals() {
                    cancel.cancel();
                    raised = Some(e);
                }
            }
        }
        let value = match worker.join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match raised {
            Some(e) => Err(e),
            None => Ok(value),
        }
    })
}

fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    let main = threading.call_method0("main_thread")?;
    let current = threading.call_method0("current_thread")?;
    Ok(main.is(&current))
}
