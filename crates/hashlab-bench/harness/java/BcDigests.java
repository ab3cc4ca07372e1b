// BouncyCastle's lightweight digests for hashlab's Java harness (Harness.java).
// Compiled only when a bcprov jar is found:
//
//   javac -d OUT -cp OUT:bcprov.jar BcDigests.java
//
// Harness loads this class by name, so it builds and runs without it. The
// timed idiom is BouncyCastle's: one Digest per cell, `update(m, 0, n)`,
// `doFinal(out, 0)` (which resets it). No warm-up here: hashlab calls `time`
// repeatedly first, and the JIT compiles the loop meanwhile.

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.Blake2bDigest;
import org.bouncycastle.crypto.digests.Blake2sDigest;
import org.bouncycastle.crypto.digests.Blake3Digest;
import org.bouncycastle.crypto.digests.MD5Digest;
import org.bouncycastle.crypto.digests.SHA1Digest;
import org.bouncycastle.crypto.digests.SHA224Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.digests.SHA384Digest;
import org.bouncycastle.crypto.digests.SHA3Digest;
import org.bouncycastle.crypto.digests.SHA512Digest;
import org.bouncycastle.crypto.digests.SHA512tDigest;

public final class BcDigests {
    private BcDigests() {}

    static final class BcKernel implements Harness.Kernel {
        private final Digest d;
        private final byte[] out;

        BcKernel(Digest d) {
            this.d = d;
            this.out = new byte[d.getDigestSize()];
        }

        public byte[] digest(byte[] m) {
            d.update(m, 0, m.length);
            d.doFinal(out, 0);
            return out.clone();
        }

        public long time(byte[] m, long batch, int[] sink) {
            final Digest d = this.d;
            final byte[] out = this.out;
            final int n = m.length;
            int s = 0;
            long t0 = System.nanoTime();
            for (long i = 0; i < batch; i++) {
                d.update(m, 0, n);
                d.doFinal(out, 0);
                s ^= out[0] & 0xff;
            }
            long t1 = System.nanoTime();
            sink[0] = s;
            return t1 - t0;
        }
    }

    /** hashlab's algorithm names -> a fresh kernel, for what works here. */
    public static Map<String, Supplier<Harness.Kernel>> algorithms() {
        Map<String, Supplier<Digest>> digests = new LinkedHashMap<>();
        digests.put("md5", MD5Digest::new);
        digests.put("sha1", SHA1Digest::new);
        digests.put("sha224", SHA224Digest::new);
        digests.put("sha256", SHA256Digest::new);
        digests.put("sha384", SHA384Digest::new);
        digests.put("sha512", SHA512Digest::new);
        digests.put("sha512-224", () -> new SHA512tDigest(224));
        digests.put("sha512-256", () -> new SHA512tDigest(256));
        digests.put("sha3-224", () -> new SHA3Digest(224));
        digests.put("sha3-256", () -> new SHA3Digest(256));
        digests.put("sha3-384", () -> new SHA3Digest(384));
        digests.put("sha3-512", () -> new SHA3Digest(512));
        digests.put("blake2b", () -> new Blake2bDigest(512));
        digests.put("blake2s", () -> new Blake2sDigest(256));
        digests.put("blake3", () -> new Blake3Digest(256));

        Map<String, Supplier<Harness.Kernel>> table = new LinkedHashMap<>();
        for (Map.Entry<String, Supplier<Digest>> e : digests.entrySet()) {
            final Supplier<Digest> make = e.getValue();
            try {
                new BcKernel(make.get()).digest(new byte[0]);
            } catch (Throwable t) {
                continue; // missing from this bcprov: not offered
            }
            table.put(e.getKey(), () -> new BcKernel(make.get()));
        }
        return table;
    }

    /** The bcprov version, e.g. "1.72", from the jar's manifest. */
    public static String version() {
        Package p = Digest.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        if (v == null || v.isEmpty()) {
            return "(unknown version)";
        }
        // The manifest says 1.72.0 for the release BouncyCastle calls 1.72.
        if (v.matches("\\d+\\.\\d+\\.0")) {
            v = v.substring(0, v.length() - 2);
        }
        return v;
    }
}
