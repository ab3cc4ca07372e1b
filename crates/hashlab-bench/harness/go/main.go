// The Go harness of `hashlab bench --runtime`: speaks the line protocol of
// ../PROTOCOL.md over stdin/stdout. Only the standard library is needed; the
// file extras.go (build tag `extras`) adds third-party libraries to the table.
package main

import (
	"bufio"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// One (algorithm, library) pair. `first` is what the timed loop calls: one
// complete one-shot digest in the library's usual idiom, returning its first
// byte. `sum` returns the whole digest of the same call, for `digest`
// requests; the `digest` answer also checks that `first` agrees with it.
type hasher struct {
	alg   string
	lib   string
	sum   func(m []byte) []byte
	first func(m []byte) byte
}

// Every pair this build offers, in offer order. The standard library's are
// set here, before any init function runs; extras.go appends its own from its
// init function through register.
var table = stdlib()

// Modules whose versions the `hello` line names (extras.go adds its own).
var modules []string

func register(alg, lib string, sum func([]byte) []byte, first func([]byte) byte) {
	table = append(table, &hasher{alg: alg, lib: lib, sum: sum, first: first})
}

func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func stdlib() []*hasher {
	var t []*hasher
	register := func(alg, lib string, sum func([]byte) []byte, first func([]byte) byte) {
		t = append(t, &hasher{alg: alg, lib: lib, sum: sum, first: first})
	}
	register("null", "go harness",
		func(m []byte) []byte { return []byte{nullByte(m)} },
		nullByte)

	register("md5", "go crypto/md5",
		func(m []byte) []byte { d := md5.Sum(m); return d[:] },
		func(m []byte) byte { d := md5.Sum(m); return d[0] })
	register("sha1", "go crypto/sha1",
		func(m []byte) []byte { d := sha1.Sum(m); return d[:] },
		func(m []byte) byte { d := sha1.Sum(m); return d[0] })
	register("sha224", "go crypto/sha256",
		func(m []byte) []byte { d := sha256.Sum224(m); return d[:] },
		func(m []byte) byte { d := sha256.Sum224(m); return d[0] })
	register("sha256", "go crypto/sha256",
		func(m []byte) []byte { d := sha256.Sum256(m); return d[:] },
		func(m []byte) byte { d := sha256.Sum256(m); return d[0] })
	register("sha384", "go crypto/sha512",
		func(m []byte) []byte { d := sha512.Sum384(m); return d[:] },
		func(m []byte) byte { d := sha512.Sum384(m); return d[0] })
	register("sha512", "go crypto/sha512",
		func(m []byte) []byte { d := sha512.Sum512(m); return d[:] },
		func(m []byte) byte { d := sha512.Sum512(m); return d[0] })
	register("sha512-224", "go crypto/sha512",
		func(m []byte) []byte { d := sha512.Sum512_224(m); return d[:] },
		func(m []byte) byte { d := sha512.Sum512_224(m); return d[0] })
	register("sha512-256", "go crypto/sha512",
		func(m []byte) []byte { d := sha512.Sum512_256(m); return d[:] },
		func(m []byte) byte { d := sha512.Sum512_256(m); return d[0] })
	register("sha3-224", "go crypto/sha3",
		func(m []byte) []byte { d := sha3.Sum224(m); return d[:] },
		func(m []byte) byte { d := sha3.Sum224(m); return d[0] })
	register("sha3-256", "go crypto/sha3",
		func(m []byte) []byte { d := sha3.Sum256(m); return d[:] },
		func(m []byte) byte { d := sha3.Sum256(m); return d[0] })
	register("sha3-384", "go crypto/sha3",
		func(m []byte) []byte { d := sha3.Sum384(m); return d[:] },
		func(m []byte) byte { d := sha3.Sum384(m); return d[0] })
	register("sha3-512", "go crypto/sha3",
		func(m []byte) []byte { d := sha3.Sum512(m); return d[:] },
		func(m []byte) byte { d := sha3.Sum512(m); return d[0] })
	register("crc32", "go hash/crc32",
		func(m []byte) []byte { return be32(crc32.ChecksumIEEE(m)) },
		func(m []byte) byte { return byte(crc32.ChecksumIEEE(m) >> 24) })
	register("crc32c", "go hash/crc32",
		func(m []byte) []byte { return be32(crc32.Checksum(m, castagnoli)) },
		func(m []byte) byte { return byte(crc32.Checksum(m, castagnoli) >> 24) })
	return t
}

// The null hasher: reads the message's first and last byte (0 when empty).
func nullByte(m []byte) byte {
	if len(m) == 0 {
		return 0
	}
	return m[0] ^ m[len(m)-1]
}

type cell struct {
	h   *hasher
	msg []byte
}

type harness struct {
	index map[string]*hasher
	cells map[int]*cell
	out   *bufio.Writer
}

func key(alg, lib string) string { return alg + "\t" + lib }

func version() string {
	v := runtime.Version()
	if len(modules) == 0 {
		return v
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	for _, path := range modules {
		for _, dep := range info.Deps {
			if dep.Path == path {
				if dep.Replace != nil {
					dep = dep.Replace
				}
				v += " " + dep.Path + " " + dep.Version
			}
		}
	}
	return v
}

func (h *harness) lookup(alg, lib string) (*hasher, error) {
	e, ok := h.index[key(alg, lib)]
	if !ok {
		return nil, fmt.Errorf("not offered: %s %s", alg, lib)
	}
	return e, nil
}

func parseCount(field, what string) (int, error) {
	n, err := strconv.ParseUint(field, 10, 63)
	if err != nil || n > uint64(int(^uint(0)>>1)) {
		return 0, fmt.Errorf("bad %s: %q", what, field)
	}
	return int(n), nil
}

func wantFields(f []string, n int) error {
	if len(f) != n {
		return fmt.Errorf("%s takes %d fields", f[0], n)
	}
	return nil
}

// answer handles one request line and returns the answer line(s), without
// the final newline; quit is reported by the boolean.
func (h *harness) answer(line string) (ans string, quit bool) {
	defer func() {
		if r := recover(); r != nil {
			ans = "error\t" + clean(fmt.Sprint(r))
		}
	}()
	f := strings.Split(line, "\t")
	switch f[0] {
	case "quit", "hello", "offers":
		if err := wantFields(f, 1); err != nil {
			return errorLine(err), false
		}
	}
	switch f[0] {
	case "quit":
		return "", true
	case "hello":
		return "hello\t" + version(), false
	case "offers":
		var b strings.Builder
		for _, e := range table {
			b.WriteString("offer\t" + e.alg + "\t" + e.lib + "\n")
		}
		b.WriteString("end")
		return b.String(), false
	case "digest":
		if err := wantFields(f, 4); err != nil {
			return errorLine(err), false
		}
		e, err := h.lookup(f[1], f[2])
		if err != nil {
			return errorLine(err), false
		}
		m, err := hex.DecodeString(f[3])
		if err != nil {
			return errorLine(fmt.Errorf("bad hex: %v", err)), false
		}
		d := e.sum(m)
		if first := e.first(m); len(d) == 0 || first != d[0] {
			return errorLine(fmt.Errorf("harness bug: timed function of %s %s disagrees with its digest", e.alg, e.lib)), false
		}
		return "digest\t" + hex.EncodeToString(d), false
	case "prepare":
		if err := wantFields(f, 5); err != nil {
			return errorLine(err), false
		}
		id, err := parseCount(f[1], "cell")
		if err != nil {
			return errorLine(err), false
		}
		e, err := h.lookup(f[2], f[3])
		if err != nil {
			return errorLine(err), false
		}
		size, err := parseCount(f[4], "size")
		if err != nil {
			return errorLine(err), false
		}
		delete(h.cells, id) // let a replaced cell's message go first
		msg := make([]byte, size)
		for i := range msg {
			msg[i] = byte(i*7 + 1)
		}
		h.cells[id] = &cell{h: e, msg: msg}
		return "ok", false
	case "time":
		if err := wantFields(f, 3); err != nil {
			return errorLine(err), false
		}
		id, err := parseCount(f[1], "cell")
		if err != nil {
			return errorLine(err), false
		}
		c, ok := h.cells[id]
		if !ok {
			return errorLine(fmt.Errorf("no cell %d prepared", id)), false
		}
		batch, err := parseCount(f[2], "batch")
		if err != nil {
			return errorLine(err), false
		}
		elapsed, sink := run(c.h.first, c.msg, batch)
		return "ns\t" + strconv.FormatInt(elapsed, 10) + "\t" + strconv.Itoa(int(sink)), false
	default:
		return "error\tunknown request", false
	}
}

// run is the timed loop: the monotonic clock is read once before and once
// after it (time.Now carries a monotonic reading; Sub uses it).
//
//go:noinline
func run(first func([]byte) byte, m []byte, batch int) (int64, byte) {
	var sink byte
	start := time.Now()
	for i := 0; i < batch; i++ {
		sink ^= first(m)
	}
	end := time.Now()
	return end.Sub(start).Nanoseconds(), sink
}

func errorLine(err error) string { return "error\t" + clean(err.Error()) }

// clean keeps a message on one line and inside one field.
func clean(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

func main() {
	h := &harness{
		index: make(map[string]*hasher, len(table)),
		cells: make(map[int]*cell),
		out:   bufio.NewWriterSize(os.Stdout, 64<<10),
	}
	for _, e := range table {
		h.index[key(e.alg, e.lib)] = e
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadString('\n')
		if err != nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "harness: reading stdin:", err)
			os.Exit(1)
		}
		if line == "" && err == io.EOF {
			break
		}
		line = strings.TrimSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\r")
		ans, quit := h.answer(line)
		if quit {
			break
		}
		h.out.WriteString(ans)
		h.out.WriteByte('\n')
		if ferr := h.out.Flush(); ferr != nil {
			fmt.Fprintln(os.Stderr, "harness: writing stdout:", ferr)
			os.Exit(1)
		}
		if err == io.EOF {
			break
		}
	}
	h.out.Flush()
}
