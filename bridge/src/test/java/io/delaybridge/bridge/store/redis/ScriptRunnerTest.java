package io.delaybridge.bridge.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delaybridge.bridge.store.redis.ScriptRunner.Script;
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
    void digestIsRedisSha1OfTheSource() {
        // SCRIPT LOAD "return 1" answers e0e1f9fabfc9d4800c877a703b823ac0578ff8db
        assertEquals("e0e1f9fabfc9d4800c877a703b823ac0578ff8db", ScriptRunner.sha1Hex("return 1"));
    }
}
