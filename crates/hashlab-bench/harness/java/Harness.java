// hashlab's Java harness: speaks PROTOCOL.md (beside this directory) on
// stdin/stdout. Java 17, standard library only; BouncyCastle's lightweight
// API is used through BcDigests.java, which is compiled only when a bcprov jar
// is found and is loaded here by name, so this file builds and runs without it:
//
//   javac -d OUT Harness.java
//   javac -d OUT -cp OUT:bcprov.jar BcDigests.java     (only with the jar)
//   java -cp OUT[:bcprov.jar] Harness
//
// Every answer is one line on stdout, flushed at once; nothing else goes to
// stdout. A request that cannot be served answers `error\t<message>` and the
// harness keeps going. It exits 0 on EOF or `quit`.
//
// What is timed is the usual idiom: one MessageDigest per cell and
// `md.digest(m)` (which resets it); one CRC32/CRC32C per cell, `reset`,
// `update(m, 0, n)`, `getValue`; BouncyCastle's `update(m, 0, n)`,
// `doFinal(out, 0)` on one Digest per cell.
//
// The JIT: this harness does no warm-up of its own. The timing loops start
// interpreted and are compiled (OSR, then C2) as they run; hashlab warms up by
// calling `time` on a cell repeatedly and discarding those answers, and the
// numbers are only meaningful after that.

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

public final class Harness {
    /** One algorithm of one library, bound to its own state (one per cell). */
    public interface Kernel {
        /** One digest of m, computed the way {@link #time} computes it. */
        byte[] digest(byte[] m);

        /**
         * Hashes m batch times; answers the elapsed nanoseconds of the loop and
         * leaves the XOR of the first byte of every digest in sink[0].
         */
        long time(byte[] m, long batch, int[] sink);
    }

    static final String LIB_MD = "java MessageDigest";
    static final String LIB_ZIP = "java java.util.zip";
    static final String LIB_BC = "java BouncyCastle";
    static final String LIB_HARNESS = "java harness";

    /** label -> algorithm -> a fresh kernel. */
    static final Map<String, Map<String, Supplier<Kernel>>> LIBRARIES = new LinkedHashMap<>();
    /** label -> why it cannot be used here. */
    static final Map<String, String> ABSENT = new LinkedHashMap<>();
    static String bcVersion = null;

    // ---------------------------------------------------------------- kernels

    static final class MdKernel implements Kernel {
        private final MessageDigest md;

        MdKernel(MessageDigest md) {
            this.md = md;
        }

        public byte[] digest(byte[] m) {
            return md.digest(m);
        }

        public long time(byte[] m, long batch, int[] sink) {
            final MessageDigest md = this.md;
            int s = 0;
            long t0 = System.nanoTime();
            for (long i = 0; i < batch; i++) {
                s ^= md.digest(m)[0] & 0xff;
            }
            long t1 = System.nanoTime();
            sink[0] = s;
            return t1 - t0;
        }
    }

    static final class CrcKernel implements Kernel {
        private final Checksum c;

        CrcKernel(Checksum c) {
            this.c = c;
        }

        public byte[] digest(byte[] m) {
            c.reset();
            c.update(m, 0, m.length);
            int v = (int) c.getValue();
            return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
        }

        public long time(byte[] m, long batch, int[] sink) {
            // The first byte of the big-endian digest is the top byte of the value.
            final Checksum c = this.c;
            final int n = m.length;
            int s = 0;
            long t0 = System.nanoTime();
            for (long i = 0; i < batch; i++) {
                c.reset();
                c.update(m, 0, n);
                s ^= (int) (c.getValue() >>> 24) & 0xff;
            }
            long t1 = System.nanoTime();
            sink[0] = s;
            return t1 - t0;
        }
    }

    /** What the loop costs without a hash: the message's first and last byte. */
    static final class NullKernel implements Kernel {
        public byte[] digest(byte[] m) {
            throw new IllegalArgumentException("null has no digest");
        }

        public long time(byte[] m, long batch, int[] sink) {
            int s = 0;
            long t0;
            long t1;
            if (m.length > 0) {
                final int last = m.length - 1;
                t0 = System.nanoTime();
                for (long i = 0; i < batch; i++) {
                    s ^= (m[0] ^ m[last]) & 0xff;
                }
                t1 = System.nanoTime();
            } else {
                final int z = 0;
                t0 = System.nanoTime();
                for (long i = 0; i < batch; i++) {
                    s ^= z ^ z;
                }
                t1 = System.nanoTime();
            }
            sink[0] = s;
            return t1 - t0;
        }
    }

    // ---------------------------------------------------------------- libraries

    static void loadLibraries() {
        String[][] md = {
            {"md5", "MD5"},
            {"sha1", "SHA-1"},
            {"sha224", "SHA-224"},
            {"sha256", "SHA-256"},
            {"sha384", "SHA-384"},
            {"sha512", "SHA-512"},
            {"sha512-224", "SHA-512/224"},
            {"sha512-256", "SHA-512/256"},
            {"sha3-224", "SHA3-224"},
            {"sha3-256", "SHA3-256"},
            {"sha3-384", "SHA3-384"},
            {"sha3-512", "SHA3-512"},
        };
        Map<String, Supplier<Kernel>> mdTable = new LinkedHashMap<>();
        for (String[] pair : md) {
            final String name = pair[1];
            try {
                MessageDigest.getInstance(name).digest(new byte[0]);
            } catch (Exception e) {
                continue; // not in the default providers here: not offered
            }
            mdTable.put(pair[0], () -> {
                try {
                    return new MdKernel(MessageDigest.getInstance(name));
                } catch (Exception e) {
                    throw new IllegalStateException(name + ": " + e.getMessage(), e);
                }
            });
        }
        LIBRARIES.put(LIB_MD, mdTable);

        Map<String, Supplier<Kernel>> zip = new LinkedHashMap<>();
        zip.put("crc32", () -> new CrcKernel(new CRC32()));
        zip.put("crc32c", () -> new CrcKernel(new CRC32C()));
        LIBRARIES.put(LIB_ZIP, zip);

        loadBouncyCastle();
    }

    @SuppressWarnings("unchecked")
    static void loadBouncyCastle() {
        Class<?> bc;
        try {
            bc = Class.forName("BcDigests");
        } catch (ClassNotFoundException e) {
            ABSENT.put(LIB_BC, "BcDigests is not compiled (no bcprov jar was found)");
            return;
        } catch (LinkageError e) {
            ABSENT.put(LIB_BC, "bcprov is not on the class path (" + describe(e) + ")");
            return;
        }
        try {
            Map<String, Supplier<Kernel>> table =
                (Map<String, Supplier<Kernel>>) bc.getMethod("algorithms").invoke(null);
            bcVersion = (String) bc.getMethod("version").invoke(null);
            if (table.isEmpty()) {
                ABSENT.put(LIB_BC, "no digest could be created");
            } else {
                LIBRARIES.put(LIB_BC, table);
            }
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            ABSENT.put(LIB_BC, "bcprov is not usable (" + describe(cause) + ")");
        } catch (Throwable e) {
            ABSENT.put(LIB_BC, "bcprov is not usable (" + describe(e) + ")");
        }
    }

    static String describe(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    static Kernel lookup(String algorithm, String library) {
        if (library.equals(LIB_HARNESS)) {
            if (algorithm.equals("null")) {
                return new NullKernel();
            }
            throw new IllegalArgumentException(LIB_HARNESS + " offers only null, not " + algorithm);
        }
        Map<String, Supplier<Kernel>> table = LIBRARIES.get(library);
        if (table == null) {
            String why = ABSENT.get(library);
            if (why != null) {
                throw new IllegalArgumentException(library + " is absent: " + why);
            }
            throw new IllegalArgumentException("unknown library " + library);
        }
        Supplier<Kernel> make = table.get(algorithm);
        if (make == null) {
            throw new IllegalArgumentException(library + " does not offer " + algorithm);
        }
        return make.get();
    }

    // ---------------------------------------------------------------- protocol

    static String version() {
        String vendor = System.getProperty("java.vendor", "unknown vendor");
        String v = "java " + System.getProperty("java.version", "unknown") + " (" + vendor + ")";
        if (bcVersion != null) {
            v += " BouncyCastle " + bcVersion;
        }
        return v;
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").trim();
    }

    static byte[] message(int size) {
        byte[] m = new byte[size];
        for (int i = 0; i < size; i++) {
            m[i] = (byte) (i * 7 + 1);
        }
        return m;
    }

    static long parseCount(String text, String what, long max) {
        if (text.isEmpty() || text.length() > 19) {
            throw new IllegalArgumentException("bad " + what + ": " + text);
        }
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch < '0' || ch > '9') {
                throw new IllegalArgumentException("bad " + what + ": " + text);
            }
        }
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad " + what + ": " + text);
        }
        if (v > max) {
            throw new IllegalArgumentException("bad " + what + ": " + text + " (at most " + max + ")");
        }
        return v;
    }

    static int hexValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    static byte[] parseHex(String text) {
        if (text.length() % 2 != 0) {
            throw new IllegalArgumentException("bad hex message");
        }
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = hexValue(text.charAt(2 * i));
            int lo = hexValue(text.charAt(2 * i + 1));
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("bad hex message");
            }
            out[i] = (byte) (hi << 4 | lo);
        }
        return out;
    }

    static final char[] HEX = "0123456789abcdef".toCharArray();

    static String toHex(byte[] b) {
        char[] out = new char[b.length * 2];
        for (int i = 0; i < b.length; i++) {
            out[2 * i] = HEX[(b[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[b[i] & 0xf];
        }
        return new String(out);
    }

    static final class Cell {
        final Kernel kernel;
        final byte[] m;

        Cell(Kernel kernel, byte[] m) {
            this.kernel = kernel;
            this.m = m;
        }
    }

    static final Map<Long, Cell> CELLS = new HashMap<>();
    static final int[] SINK = new int[1];

    static String offers() {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, Map<String, Supplier<Kernel>>> lib : LIBRARIES.entrySet()) {
            for (String algorithm : lib.getValue().keySet()) {
                lines.add("offer\t" + algorithm + "\t" + lib.getKey());
            }
        }
        lines.add("offer\tnull\t" + LIB_HARNESS);
        for (Map.Entry<String, String> a : ABSENT.entrySet()) {
            lines.add("absent\t" + a.getKey() + "\t" + oneLine(a.getValue()));
        }
        lines.add("end");
        return String.join("\n", lines);
    }

    static String handle(String[] f) {
        switch (f[0]) {
            case "hello":
                return "hello\t" + oneLine(version());
            case "offers":
                return offers();
            case "digest": {
                if (f.length != 4) {
                    throw new IllegalArgumentException("digest wants: digest<TAB>algorithm<TAB>library<TAB>hex");
                }
                Kernel k = lookup(f[1], f[2]);
                byte[] m = parseHex(f[3]);
                return "digest\t" + toHex(k.digest(m));
            }
            case "prepare": {
                if (f.length != 5) {
                    throw new IllegalArgumentException(
                        "prepare wants: prepare<TAB>cell<TAB>algorithm<TAB>library<TAB>size");
                }
                long cell = parseCount(f[1], "cell", Long.MAX_VALUE);
                Kernel k = lookup(f[2], f[3]);
                int size = (int) parseCount(f[4], "size", Integer.MAX_VALUE - 16);
                CELLS.remove(cell); // free the old message before allocating the new
                CELLS.put(cell, new Cell(k, message(size)));
                return "ok";
            }
            case "time": {
                if (f.length != 3) {
                    throw new IllegalArgumentException("time wants: time<TAB>cell<TAB>batch");
                }
                long cell = parseCount(f[1], "cell", Long.MAX_VALUE);
                long batch = parseCount(f[2], "batch", Long.MAX_VALUE);
                Cell c = CELLS.get(cell);
                if (c == null) {
                    throw new IllegalArgumentException("cell " + cell + " is not prepared");
                }
                long elapsed = c.kernel.time(c.m, batch, SINK);
                return "ns\t" + elapsed + "\t" + SINK[0];
            }
            default:
                return "error\tunknown request";
        }
    }

    public static void main(String[] args) throws IOException {
        loadLibraries();
        BufferedReader in = new BufferedReader(
            new InputStreamReader(System.in, StandardCharsets.ISO_8859_1), 1 << 16);
        BufferedWriter out = new BufferedWriter(
            new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            String[] fields = line.split("\t", -1);
            if (fields[0].equals("quit")) {
                break;
            }
            String answer;
            try {
                answer = handle(fields);
            } catch (OutOfMemoryError e) {
                answer = "error\tout of memory";
            } catch (Throwable e) {
                String m = oneLine(e.getMessage());
                answer = "error\t" + (m.isEmpty() ? e.getClass().getSimpleName() : m);
            }
            try {
                out.write(answer);
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                break; // the reader went away
            }
        }
        System.exit(0);
    }
}
