package io.delaybridge.schemas;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 without per-call garbage on the common path. {@code new String(bytes, UTF_8)} silently turns bad
 * bytes into U+FFFD, which would let a mangled id or target slip through; a strict decoder is only built when a
 * value holds non-ASCII bytes.
 */
final class Utf8 {

    private Utf8() {}

    /**
     * @return the decoded string
     * @throws MalformedUtf8 naming the first bad byte and its index
     */
    static String decode(byte[] bytes, int offset, int length) throws MalformedUtf8 {
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            if (bytes[i] < 0) {
                return decodeNonAscii(bytes, offset, length);
            }
        }
        // ISO-8859-1 of pure ASCII is the same text and lets the JDK keep a compact Latin-1 string without a decoder.
        return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
    }

    private static String decodeNonAscii(byte[] bytes, int offset, int length) throws MalformedUtf8 {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, offset, length);
        try {
            CharBuffer out = decoder.decode(in);
            return out.toString();
        } catch (CharacterCodingException e) {
            // decode() leaves the buffer positioned at the offending byte
            int at = in.position();
            throw new MalformedUtf8(at - offset, bytes[at]);
        }
    }

    /** Malformed input with the position of the bad byte, relative to the start of the value. */
    static final class MalformedUtf8 extends CharacterCodingException {
        private static final long serialVersionUID = 1L;
        final int index;
        final int badByte;

        MalformedUtf8(int index, byte badByte) {
            this.index = index;
            this.badByte = badByte & 0xFF;
        }

        @Override
        public String getMessage() {
            return String.format("malformed UTF-8 at byte %d (0x%02X)", index, badByte);
        }
    }

    /** Number of bytes {@link #encode} writes; unpaired surrogates count as one byte ({@code ?}), as in getBytes. */
    static int encodedLength(String s) {
        int n = s.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                bytes += 1;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 2; // 4 bytes for 2 chars
                i++;
            } else if (Character.isSurrogate(c)) {
                continue; // replaced by '?'
            } else {
                bytes += 2;
            }
        }
        return bytes;
    }

    /** Writes {@code s} as UTF-8 at {@code pos}; returns the position after it. */
    static int encode(String s, byte[] dst, int pos) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                dst[pos++] = (byte) c;
            } else if (c < 0x800) {
                dst[pos++] = (byte) (0xC0 | (c >> 6));
                dst[pos++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                dst[pos++] = (byte) (0xF0 | (cp >> 18));
                dst[pos++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                dst[pos++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                dst[pos++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                dst[pos++] = (byte) '?';
            } else {
                dst[pos++] = (byte) (0xE0 | (c >> 12));
                dst[pos++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                dst[pos++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return pos;
    }
}
