package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Each script's typed description (what the calls build KEYS and ARGV from) says what the script's header says. */
class ScriptSignatureTest {

    private static final Pattern KEY = Pattern.compile("^  KEYS\\[(\\d+)\\] (\\w+)");
    private static final Pattern REPEATED_KEY = Pattern.compile("^  KEYS\\[(\\d+)\\.\\.\\] (\\w+)");
    private static final Pattern ARG = Pattern.compile("^  ARGV\\[(\\d+)\\] (\\w+)");
    private static final Pattern REPEATED = Pattern.compile("^  ARGV\\[(\\d+)\\.\\.\\] (\\w+)");
    private static final Pattern FIELD = Pattern.compile("^    (\\w+) {2,}");

    /** What a header declares. */
    private record Header(
            List<String> keys,
            String repeatedKeys,
            List<String> args,
            int repeatedFrom,
            String repeated,
            List<String> fields) {}

    static Header parse(String source) {
        String block = source.substring(0, source.indexOf("]]"));
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        List<String> fields = new ArrayList<>();
        int repeatedFrom = -1;
        String repeated = null;
        String repeatedKeys = null;
        boolean inGroup = false;
        for (String line : block.split("\n")) {
            Matcher m;
            if ((m = REPEATED_KEY.matcher(line)).find()) {
                assertEquals(keys.size() + 1, Integer.parseInt(m.group(1)), "KEYS[n..] follows the fixed keys");
                repeatedKeys = m.group(2);
                inGroup = false;
            } else if ((m = KEY.matcher(line)).find()) {
                assertEquals(keys.size() + 1, Integer.parseInt(m.group(1)), "KEYS numbered in order: " + line);
                keys.add(m.group(2));
                inGroup = false;
            } else if ((m = REPEATED.matcher(line)).find()) {
                repeatedFrom = Integer.parseInt(m.group(1));
                repeated = m.group(2);
                inGroup = true;
            } else if ((m = ARG.matcher(line)).find()) {
                assertEquals(args.size() + 1, Integer.parseInt(m.group(1)), "ARGV numbered in order: " + line);
                args.add(m.group(2));
                inGroup = false;
            } else if (inGroup && (m = FIELD.matcher(line)).find()) {
                fields.add(m.group(1));
            } else if (line.isBlank()) {
                inGroup = false;
            }
        }
        return new Header(keys, repeatedKeys, args, repeatedFrom, repeated, fields);
    }

    @Test
    void everyScriptsDescriptionMatchesItsHeader() {
        ScriptRunner runner = new ScriptRunner();
        for (Script script : Script.values()) {
            assertMatches(script.file(), runner.source(script), script.signature());
        }
    }

    @Test
    void theTestsOwnScriptsDescriptionMatchesItsHeader() {
        assertMatches("far_append.lua (tests)", FarAppend.SOURCE, FarAppend.SIGNATURE);
    }

    private static void assertMatches(String file, String source, ScriptSignature signature) {
        Header header = parse(source);
        assertEquals(
                header.keys(),
                signature.keys().stream().map(ScriptSignature.Key::header).toList(),
                file + " KEYS");
        assertEquals(header.repeatedKeys(), signature.repeatedKeys(), file + " KEYS[n..]");
        assertEquals(header.args(), signature.args(), file + " ARGV");
        assertEquals(header.repeated(), signature.repeated(), file + " repeated ARGV group");
        if (signature.repeated() != null) {
            assertEquals(signature.repeatedFrom(), header.repeatedFrom(), file + " ARGV[n..]");
            if (signature.fields().size() > 1) {
                assertEquals(header.fields(), signature.fields(), file + " fields per entry");
            }
        }
    }

    @Test
    void theParserSeesAWrongHeader() {
        Header header = parse("""
                --[[
                  x: test.

                  KEYS[1] due        zset
                  KEYS[2] epoch      string
                  ARGV[1] epoch      the caller's epoch
                  ARGV[2..] pairs    2 arguments per entry:
                    member   the member
                    due      the due time
                ]]
                """);
        assertEquals(List.of("due", "epoch"), header.keys());
        assertEquals(List.of("epoch"), header.args());
        assertEquals("pairs", header.repeated());
        assertEquals(List.of("member", "due"), header.fields());
        assertTrue(
                !Script.HANDBACK.signature().keys().stream()
                        .map(ScriptSignature.Key::header)
                        .toList()
                        .equals(header.keys()),
                "a description that differs from the header is told apart");
    }

    @Test
    void argumentsAreCheckedAgainstTheDescription() {
        assertThrows(IllegalArgumentException.class, () -> Script.CLAIM.argv(new byte[0], new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> Script.HANDBACK.argvRepeated(new byte[3][]));
        assertEquals(4, Script.HANDBACK.argvRepeated(new byte[4][]).length);
        RedisKeys keys = new RedisKeys("delay", "delay-intake", 4);
        byte[][] claimKeys = Script.CLAIM.keys(keys.shard(2));
        assertEquals(new String(keys.shard(2).epoch()), new String(claimKeys[4]), "claim.lua's KEYS[5] is the epoch");
    }
}
