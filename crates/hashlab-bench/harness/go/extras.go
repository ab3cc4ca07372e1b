//go:build extras

// Third-party libraries, built only with `-tags extras` and the go.mod/go.sum
// pinned in go.mod.extras/go.sum.extras.
package main

import (
	"github.com/cespare/xxhash/v2"
	zeebo "github.com/zeebo/blake3"
	"github.com/zeebo/xxh3"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"
	luke "lukechampine.com/blake3"
)

func init() {
	modules = append(modules,
		"golang.org/x/crypto",
		"lukechampine.com/blake3",
		"github.com/zeebo/blake3",
		"github.com/zeebo/xxh3",
		"github.com/cespare/xxhash/v2",
	)

	register("blake2b", "go golang.org/x/crypto/blake2b",
		func(m []byte) []byte { d := blake2b.Sum512(m); return d[:] },
		func(m []byte) byte { d := blake2b.Sum512(m); return d[0] })
	register("blake2s", "go golang.org/x/crypto/blake2s",
		func(m []byte) []byte { d := blake2s.Sum256(m); return d[:] },
		func(m []byte) byte { d := blake2s.Sum256(m); return d[0] })
	register("blake3", "go lukechampine.com/blake3",
		func(m []byte) []byte { d := luke.Sum256(m); return d[:] },
		func(m []byte) byte { d := luke.Sum256(m); return d[0] })
	register("blake3", "go github.com/zeebo/blake3",
		func(m []byte) []byte { d := zeebo.Sum256(m); return d[:] },
		func(m []byte) byte { d := zeebo.Sum256(m); return d[0] })
	register("xxh3-64", "go github.com/zeebo/xxh3",
		func(m []byte) []byte { return be64(xxh3.Hash(m)) },
		func(m []byte) byte { return byte(xxh3.Hash(m) >> 56) })
	register("xxh3-128", "go github.com/zeebo/xxh3",
		func(m []byte) []byte { d := xxh3.Hash128(m).Bytes(); return d[:] },
		func(m []byte) byte { return byte(xxh3.Hash128(m).Hi >> 56) })
	register("xxh64", "go github.com/cespare/xxhash/v2",
		func(m []byte) []byte { return be64(xxhash.Sum64(m)) },
		func(m []byte) byte { return byte(xxhash.Sum64(m) >> 56) })
}
