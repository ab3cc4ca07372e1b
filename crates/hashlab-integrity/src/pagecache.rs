//! Dropping a file's pages from the page cache (for cold-cache runs), and
//! checking whether that worked: `posix_fadvise(DONTNEED)` is only advice, and
//! some filesystems (tmpfs, overlays) keep the pages anyway.

use std::fs::File;
use std::os::unix::io::AsRawFd;

/// Asks the kernel to forget the file's cached pages.
pub fn drop_cached_pages(file: &File) -> Result<(), String> {
    // SAFETY: a plain syscall on an open descriptor; offset 0, length 0 = the whole file.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "posix_fadvise(DONTNEED) failed: {}",
            std::io::Error::from_raw_os_error(rc)
        ))
    }
}

/// The share of the file's pages now in the page cache (0.0 ..= 1.0), from mincore(2).
pub fn resident_fraction(file: &File) -> Result<f64, String> {
    let len = file.metadata().map_err(|e| e.to_string())?.len() as usize;
    if len == 0 {
        return Ok(0.0);
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
    // SAFETY: a read-only shared mapping of an open file; it is only passed to
    // mincore (never read, so a concurrent truncation cannot fault) and unmapped below.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(format!("mmap: {}", std::io::Error::last_os_error()));
    }
    let pages = len.div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: addr/len is the mapping just made; vec has one byte per page.
    let rc = unsafe { libc::mincore(addr, len, vec.as_mut_ptr()) };
    let err = std::io::Error::last_os_error();
    // SAFETY: unmapping exactly what was mapped.
    unsafe { libc::munmap(addr, len) };
    if rc != 0 {
        return Err(format!("mincore: {err}"));
    }
    Ok(vec.iter().filter(|b| *b & 1 == 1).count() as f64 / pages as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_makes_pages_resident_and_the_answer_is_a_fraction() {
        let path = std::env::temp_dir().join(format!("hashlab-filecache-{}", std::process::id()));
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let file = File::open(&path).unwrap();
        let _ = std::fs::read(&path).unwrap();
        let warm = resident_fraction(&file).unwrap();
        assert!(warm > 0.9, "just read: {warm}");
        drop_cached_pages(&file).unwrap();
        let cold = resident_fraction(&file).unwrap();
        assert!((0.0..=1.0).contains(&cold));
        std::fs::remove_file(&path).unwrap();
    }
}
