package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ScriptRunnerTest {

    @Test
    void everyScriptIsOnTheClassPathAndDocumentsItsContract() {
        ScriptRunner runner = new ScriptRunner();
        for (Script script : Script.values()) {
            String source = runner.source(script);
            assertTrue(source.startsWith("--[["), script.file() + " opens with its comment block");
            assertTrue(source.contains("KEYS[1]"), script.file() + " documents KEYS");
            assertTrue(source.contains("Returns"), script.file() + " documents its return codes");
            assertTrue(source.chars().allMatch(c -> c < 128), script.file() + " is ASCII");
            assertEquals(40, runner.digest(script).length());
        }
    }

    @Test
    void anIncludeLineIsReplacedByTheSharedFileAfterTheHeader() {
        String source = new ScriptRunner().source(Script.CLAIM);
        assertFalse(Pattern.compile("(?m)^--#include").matcher(source).find(), "no include line is left");
        assertTrue(source.contains("local function lane_of(value)"), "lanes.lua's code is in");
        assertTrue(source.indexOf("local function lane_of") > source.indexOf("]]"), "after the script's own header");
        String included = ScriptRunner.withIncludes("a\n--#include lanes.lua\nb");
        assertTrue(included.startsWith("a\n--[[") && included.endsWith("\nb"), included);
    }

    @Test
    void digestIsRedisSha1OfTheSource() {
        // SCRIPT LOAD "return 1" answers e0e1f9fabfc9d4800c877a703b823ac0578ff8db
        assertEquals("e0e1f9fabfc9d4800c877a703b823ac0578ff8db", ScriptRunner.sha1Hex("return 1"));
    }
}
