package io.delaybridge.schemas;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IntakeParserTest {

    static final long TS = Instant.parse("2026-11-22T08:00:00Z").toEpochMilli();
    static final long MAX = Duration.ofDays(365).toMillis();
    static final String DEFAULT_ID = "delay-intake-0-7";
    static final TargetPolicy POLICY = new TargetPolicy("delay-intake", "delay-deadletter", List.of());

    final IntakeParser parser = new IntakeParser(POLICY, MAX);

    /** Headers from name/value pairs; a null value stays null. */
    static Headers headers(String... nameValue) {
        RecordHeaders h = new RecordHeaders();
        for (int i = 0; i < nameValue.length; i += 2) {
            h.add(nameValue[i], nameValue[i + 1] == null ? null : nameValue[i + 1].getBytes(UTF_8));
        }
        return h;
    }

    IntakeCommand.Schedule schedule(String... nameValue) throws ContractViolation {
        IntakeCommand c = parser.parse(headers(nameValue), TS, DEFAULT_ID);
        assertTrue(c instanceof IntakeCommand.Schedule, "expected a schedule, got " + c);
        return (IntakeCommand.Schedule) c;
    }

    ContractViolation reject(Headers headers) {
        return assertThrows(ContractViolation.class, () -> parser.parse(headers, TS, DEFAULT_ID));
    }

    ContractViolation reject(String... nameValue) {
        return reject(headers(nameValue));
    }

    static void assertCode(ErrorCode code, ContractViolation v) {
        assertEquals(code, v.code(), v.getMessage());
    }

    @Nested
    class Schedules {

        @Test
        void targetAndDelayMakeASchedule() throws ContractViolation {
            IntakeCommand.Schedule s = schedule("delay-target", "orders.timeout", "delay-ms", "30m");
            assertEquals(new IntakeCommand.Schedule("orders.timeout", TS + 1_800_000, DEFAULT_ID, false, null), s);
        }

        @ParameterizedTest(name = "delay-ms: {0}")
        @CsvSource(
                delimiter = '|',
                value = {
                    "1500    | 1500",
                    "250ms   | 250",
                    "30s     | 30000",
                    "5m      | 300000",
                    "2h      | 7200000",
                    "7d      | 604800000",
                    "1.5s    | 1500",
                    "PT30M   | 1800000",
                    "P3D     | 259200000",
                    "0       | 0",
                    "' 30s ' | 30000",
                })
        void delayCountsFromTheRecordTimestamp(String text, long millis) throws ContractViolation {
            assertEquals(
                    TS + millis, schedule("delay-target", "t", "delay-ms", text).dueAt());
        }

        @Test
        void theRecordTimestampNotTheClockIsTheBase() throws ContractViolation {
            long earlier = TS - 600_000;
            IntakeCommand c = parser.parse(headers("delay-target", "t", "delay-ms", "5m"), earlier, DEFAULT_ID);
            assertEquals(earlier + 300_000, ((IntakeCommand.Schedule) c).dueAt());
        }

        @ParameterizedTest(name = "delay-until: {0}")
        @CsvSource(
                delimiter = '|',
                value = {
                    "2026-11-22T09:00:00Z      | 2026-11-22T09:00:00Z",
                    "2026-11-22T10:00:00+01:00 | 2026-11-22T09:00:00Z",
                    "1795338000000             | 2026-11-22T09:00:00Z",
                })
        void untilIsTheDueTime(String text, String expected) throws ContractViolation {
            assertEquals(
                    Instant.parse(expected).toEpochMilli(),
                    schedule("delay-target", "t", "delay-until", text).dueAt());
        }

        @Test
        void aDueTimeInThePastIsKeptAsIsAndMeansNow() throws ContractViolation {
            long past = Instant.parse("2020-01-01T00:00:00Z").toEpochMilli();
            assertEquals(
                    past,
                    schedule("delay-target", "t", "delay-until", "2020-01-01T00:00:00Z")
                            .dueAt());
            assertEquals(0L, schedule("delay-target", "t", "delay-until", "0").dueAt());
        }

        @Test
        void targetIsTrimmedAndCheckedByThePolicy() throws ContractViolation {
            assertEquals(
                    "orders",
                    schedule("delay-target", " orders\n", "delay-ms", "1s").target());
            assertCode(ErrorCode.TARGET_FORBIDDEN, reject("delay-target", "delay-intake", "delay-ms", "1s"));
            assertCode(ErrorCode.TARGET_FORBIDDEN, reject("delay-target", "__consumer_offsets", "delay-ms", "1s"));
            assertCode(ErrorCode.INVALID_TARGET, reject("delay-target", "orders timeout", "delay-ms", "1s"));
        }

        @Test
        void restrictivePolicyIsApplied() {
            IntakeParser strict =
                    new IntakeParser(new TargetPolicy("delay-intake", "delay-deadletter", List.of("orders\\..*")), MAX);
            ContractViolation v = assertThrows(
                    ContractViolation.class,
                    () -> strict.parse(headers("delay-target", "payments", "delay-ms", "1s"), TS, DEFAULT_ID));
            assertCode(ErrorCode.TARGET_FORBIDDEN, v);
        }

        @Test
        void missingOrBlankTarget() {
            assertCode(ErrorCode.MISSING_TARGET, reject("delay-ms", "1s"));
            assertCode(ErrorCode.MISSING_TARGET, reject("delay-target", "", "delay-ms", "1s"));
            assertCode(ErrorCode.MISSING_TARGET, reject("delay-target", "  \t", "delay-ms", "1s"));
            assertCode(ErrorCode.MISSING_TARGET, reject("delay-target", null, "delay-ms", "1s"));
            assertCode(ErrorCode.MISSING_TARGET, reject(new RecordHeaders()));
        }

        @Test
        void exactlyOneDelayHeader() {
            ContractViolation neither = reject("delay-target", "t");
            assertCode(ErrorCode.MISSING_DELAY, neither);
            assertTrue(neither.getMessage().contains("delay-ms")
                    && neither.getMessage().contains("delay-until"));

            ContractViolation both = reject("delay-target", "t", "delay-ms", "5m", "delay-until", "1795338000000");
            assertCode(ErrorCode.CONFLICTING_DELAY, both);
            assertTrue(
                    both.getMessage().contains("\"5m\"") && both.getMessage().contains("\"1795338000000\""),
                    both.getMessage());
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "   ", "5y", "-5s", "1.5", "abc", "P1M", "99999999999999999999"})
        void invalidDelayMs(String text) {
            ContractViolation v = reject("delay-target", "t", "delay-ms", text);
            assertCode(ErrorCode.INVALID_DELAY, v);
            assertTrue(v.getMessage().startsWith("delay-ms: "), v.getMessage());
        }

        @Test
        void nullDelayValueCountsAsEmpty() {
            ContractViolation v = reject("delay-target", "t", "delay-ms", null);
            assertCode(ErrorCode.INVALID_DELAY, v);
            assertTrue(v.getMessage().contains("empty"), v.getMessage());
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "tomorrow", "2026-11-22T08:00:00", "-1", "99999999999999999999"})
        void invalidDelayUntil(String text) {
            ContractViolation v = reject("delay-target", "t", "delay-until", text);
            assertCode(ErrorCode.INVALID_DELAY, v);
            assertTrue(v.getMessage().startsWith("delay-until: "), v.getMessage());
        }

        @Test
        void messageNamesHeaderValueAndAcceptedForms() {
            ContractViolation v = reject("delay-target", "t", "delay-ms", "5y");
            assertEquals(
                    "delay-ms: \"5y\" is not a delay: unknown unit \"y\" (ms, s, m, h, d); use integer "
                            + "milliseconds, a number with a unit (250ms, 30s, 5m, 2h, 7d) or ISO-8601 (PT30M)",
                    v.getMessage());
        }

        @Test
        void garbageValuesAreTruncatedInMessages() {
            ContractViolation v = reject("delay-target", "t", "delay-ms", "\u0001".repeat(100_000));
            assertCode(ErrorCode.INVALID_DELAY, v);
            assertTrue(
                    v.getMessage().length() < 1000,
                    "message of " + v.getMessage().length() + " chars");
            assertTrue(v.getMessage().contains("\\u0001"), v.getMessage());
        }

        @Test
        void dueTimeOverflowIsAnInvalidDelay() {
            IntakeParser unlimited = new IntakeParser(POLICY, Long.MAX_VALUE);
            ContractViolation v = assertThrows(
                    ContractViolation.class,
                    () -> unlimited.parse(
                            headers("delay-target", "t", "delay-ms", String.valueOf(Long.MAX_VALUE)), TS, DEFAULT_ID));
            assertCode(ErrorCode.INVALID_DELAY, v);
            assertTrue(v.getMessage().contains("overflows"), v.getMessage());
            // the same holds under a finite maximum: the sum is checked before the maximum
            assertCode(ErrorCode.INVALID_DELAY, reject("delay-target", "t", "delay-ms", "106751991167d"));
        }

        @Test
        void unlimitedMaximumAcceptsAnyDelayThatFits() throws ContractViolation {
            IntakeParser unlimited = new IntakeParser(POLICY, Long.MAX_VALUE);
            IntakeCommand c = unlimited.parse(
                    headers("delay-target", "t", "delay-ms", String.valueOf(Long.MAX_VALUE - TS)), TS, DEFAULT_ID);
            assertEquals(Long.MAX_VALUE, ((IntakeCommand.Schedule) c).dueAt());
        }

        @Test
        void delayUpToTheMaximumIsAcceptedBeyondItIsTooLong() throws ContractViolation {
            assertEquals(
                    TS + MAX, schedule("delay-target", "t", "delay-ms", "365d").dueAt());
            ContractViolation v = reject("delay-target", "t", "delay-ms", "366d");
            assertCode(ErrorCode.DELAY_TOO_LONG, v);
            assertTrue(v.getMessage().contains("366d") && v.getMessage().contains("365d"), v.getMessage());
            assertCode(ErrorCode.DELAY_TOO_LONG, reject("delay-target", "t", "delay-ms", String.valueOf(MAX + 1)));
        }

        @Test
        void untilIsMeasuredAgainstTheMaximumFromTheRecordTimestamp() throws ContractViolation {
            assertEquals(
                    TS + MAX,
                    schedule("delay-target", "t", "delay-until", String.valueOf(TS + MAX))
                            .dueAt());
            ContractViolation v = reject("delay-target", "t", "delay-until", String.valueOf(TS + MAX + 1));
            assertCode(ErrorCode.DELAY_TOO_LONG, v);
            assertTrue(v.getMessage().startsWith("delay-until: "), v.getMessage());
            assertCode(ErrorCode.DELAY_TOO_LONG, reject("delay-target", "t", "delay-until", "2099-01-01T00:00:00Z"));
            assertCode(
                    ErrorCode.DELAY_TOO_LONG,
                    reject("delay-target", "t", "delay-until", String.valueOf(Long.MAX_VALUE)));
        }

        @Test
        void untilBeyondTheMaximumOverflowingTheDifferenceIsStillTooLong() {
            ContractViolation v = assertThrows(
                    ContractViolation.class,
                    () -> parser.parse(
                            headers("delay-target", "t", "delay-until", String.valueOf(Long.MAX_VALUE)),
                            -TS,
                            DEFAULT_ID));
            assertCode(ErrorCode.DELAY_TOO_LONG, v);
        }

        @Test
        void zeroMaximumAcceptsOnlyImmediateDelivery() throws ContractViolation {
            IntakeParser none = new IntakeParser(POLICY, 0);
            IntakeCommand c = none.parse(headers("delay-target", "t", "delay-ms", "0"), TS, DEFAULT_ID);
            assertEquals(TS, ((IntakeCommand.Schedule) c).dueAt());
            assertThrows(
                    ContractViolation.class,
                    () -> none.parse(headers("delay-target", "t", "delay-ms", "1"), TS, DEFAULT_ID));
        }
    }

    @Nested
    class Ids {

        @Test
        void defaultIdWhenAbsent() throws ContractViolation {
            IntakeCommand.Schedule s = schedule("delay-target", "t", "delay-ms", "1s");
            assertEquals(DEFAULT_ID, s.id());
            assertFalse(s.explicitId());
        }

        @Test
        void explicitIdIsTakenByteForByte() throws ContractViolation {
            IntakeCommand.Schedule s = schedule("delay-target", "t", "delay-ms", "1s", "delay-id", " order-42 ");
            assertEquals(" order-42 ", s.id());
            assertTrue(s.explicitId());
            assertEquals(
                    "Bestellung-Grüße-😀",
                    schedule("delay-target", "t", "delay-ms", "1s", "delay-id", "Bestellung-Grüße-😀")
                            .id());
        }

        @ParameterizedTest
        @ValueSource(strings = {"", " ", "\t\n"})
        void blankIdIsInvalid(String id) {
            assertCode(ErrorCode.INVALID_ID, reject("delay-target", "t", "delay-ms", "1s", "delay-id", id));
        }

        @Test
        void nullIdValueIsInvalid() {
            assertCode(ErrorCode.INVALID_ID, reject("delay-target", "t", "delay-ms", "1s", "delay-id", null));
        }

        @Test
        void idLimitCountsUtf8Bytes() throws ContractViolation {
            assertEquals(
                    512,
                    schedule("delay-target", "t", "delay-ms", "1s", "delay-id", "i".repeat(512))
                            .id()
                            .length());
            assertCode(
                    ErrorCode.INVALID_ID, reject("delay-target", "t", "delay-ms", "1s", "delay-id", "i".repeat(513)));
            // 170 euro signs are 510 bytes, 171 are 513: the limit is bytes, not characters
            schedule("delay-target", "t", "delay-ms", "1s", "delay-id", "€".repeat(170));
            ContractViolation v = reject("delay-target", "t", "delay-ms", "1s", "delay-id", "€".repeat(171));
            assertCode(ErrorCode.INVALID_ID, v);
            assertTrue(v.getMessage().contains("513 bytes"), v.getMessage());
        }

        @Test
        void defaultIdShape() {
            assertEquals("delay-intake-3-1042", IntakeParser.defaultId("delay-intake", 3, 1042));
        }

        @Test
        void defaultIdIsRequired() {
            assertThrows(
                    NullPointerException.class,
                    () -> parser.parse(headers("delay-target", "t", "delay-ms", "1s"), TS, null));
        }
    }

    @Nested
    class Partitions {

        @ParameterizedTest(name = "delay-partition: \"{0}\" -> {1}")
        @CsvSource(
                delimiter = '|',
                value = {"0 | 0", "7 | 7", "' 3 ' | 3", "007 | 7", "2147483647 | 2147483647"})
        void validPartition(String text, int expected) throws ContractViolation {
            assertEquals(
                    expected,
                    schedule("delay-target", "t", "delay-ms", "1s", "delay-partition", text)
                            .partition());
        }

        @Test
        void absentPartitionLeavesItToThePartitioner() throws ContractViolation {
            assertNull(schedule("delay-target", "t", "delay-ms", "1s").partition());
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "-1", "+1", "1.5", "abc", "2147483648", "99999999999", "٣"})
        void invalidPartition(String text) {
            ContractViolation v = reject("delay-target", "t", "delay-ms", "1s", "delay-partition", text);
            assertCode(ErrorCode.INVALID_PARTITION, v);
            assertTrue(v.getMessage().startsWith("delay-partition: "), v.getMessage());
        }
    }

    @Nested
    class Cancels {

        @Test
        void cancelCarriesTheIdExactly() throws ContractViolation {
            assertEquals(
                    new IntakeCommand.Cancel("order-42"),
                    parser.parse(headers("delay-cancel", "order-42"), TS, DEFAULT_ID));
            assertEquals(
                    new IntakeCommand.Cancel(" order-42"),
                    parser.parse(headers("delay-cancel", " order-42"), TS, DEFAULT_ID));
        }

        @Test
        void cancelIgnoresUserAndProvenanceHeaders() throws ContractViolation {
            Headers h = headers("traceparent", "00-abc", "delay-cancel", "order-42", "delay-origin", "x/0/1");
            assertEquals(new IntakeCommand.Cancel("order-42"), parser.parse(h, TS, DEFAULT_ID));
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "  "})
        void blankCancelIsInvalid(String id) {
            assertCode(ErrorCode.INVALID_CANCEL, reject("delay-cancel", id));
        }

        @Test
        void nullOrOverlongCancelIsInvalid() {
            assertCode(ErrorCode.INVALID_CANCEL, reject("delay-cancel", null));
            assertCode(ErrorCode.INVALID_CANCEL, reject("delay-cancel", "i".repeat(513)));
        }

        @ParameterizedTest
        @CsvSource(
                delimiter = '|',
                value = {
                    "delay-target    | orders",
                    "delay-ms        | 5m",
                    "delay-until     | 1795338000000",
                    "delay-id        | order-42",
                    "delay-partition | 0",
                })
        void cancelCarriesNoOtherControlHeader(String other, String value) {
            ContractViolation v = reject("delay-cancel", "order-42", other, value);
            assertCode(ErrorCode.INVALID_CANCEL, v);
            assertTrue(v.getMessage().contains("carries only delay-cancel"), v.getMessage());
            assertTrue(v.getMessage().contains(other), v.getMessage());
        }

        @Test
        void conflictIsReportedBeforeTheEmptyId() {
            ContractViolation v = reject("delay-cancel", "", "delay-target", "t", "delay-ms", "5m");
            assertCode(ErrorCode.INVALID_CANCEL, v);
            assertTrue(v.getMessage().contains("delay-target, delay-ms"), v.getMessage());
        }
    }

    @Nested
    class HeaderLevel {

        @Test
        void nonUtf8ControlValueIsInvalidHeader() {
            Headers h = headers("delay-ms", "1s");
            h.add("delay-target", new byte[] {'o', (byte) 0xC3, '('});
            ContractViolation v = reject(h);
            assertCode(ErrorCode.INVALID_HEADER, v);
            assertEquals(
                    "delay-target: value is not valid UTF-8 (malformed UTF-8 at byte 1 (0xC3)); "
                            + "header values are UTF-8 strings",
                    v.getMessage());
        }

        @Test
        void truncatedOverlongAndSurrogateEncodingsAreRejected() {
            List<byte[]> bad = List.of(
                    new byte[] {'a', (byte) 0xE2, (byte) 0x82},
                    new byte[] {(byte) 0xC0, (byte) 0xAF},
                    new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                    new byte[] {(byte) 0xFF});
            for (byte[] value : bad) {
                Headers h = headers("delay-target", "t", "delay-ms", "1s");
                h.add("delay-id", value);
                assertCode(ErrorCode.INVALID_HEADER, reject(h));
            }
        }

        @Test
        void nonUtf8UserHeadersAreNotInspected() throws ContractViolation {
            Headers h = headers("delay-target", "t", "delay-ms", "1s");
            h.add("binary", new byte[] {(byte) 0xFF, 0, (byte) 0xC3});
            h.add("Delay-Ms", new byte[] {(byte) 0xFF});
            assertEquals(TS + 1000, ((IntakeCommand.Schedule) parser.parse(h, TS, DEFAULT_ID)).dueAt());
        }

        @Test
        void controlHeaderGivenTwiceIsDuplicate() {
            ContractViolation v = reject("delay-target", "t", "delay-ms", "5m", "delay-ms", "10m");
            assertCode(ErrorCode.DUPLICATE_HEADER, v);
            assertTrue(v.getMessage().startsWith("delay-ms: given more than once"), v.getMessage());
            assertTrue(v.getMessage().contains("\"5m\"") && v.getMessage().contains("\"10m\""), v.getMessage());
            assertCode(ErrorCode.DUPLICATE_HEADER, reject("delay-target", "t", "delay-target", "t", "delay-ms", "1s"));
            assertCode(ErrorCode.DUPLICATE_HEADER, reject("delay-cancel", "a", "delay-cancel", "a"));
        }

        @Test
        void unknownDelayHeaderCatchesTypos() {
            ContractViolation v = reject("delay-target", "t", "delay-msec", "5000");
            assertCode(ErrorCode.UNKNOWN_HEADER, v);
            assertTrue(v.getMessage().startsWith("\"delay-msec\" is not a control header"), v.getMessage());
            assertTrue(
                    v.getMessage()
                            .contains("delay-target, delay-ms, delay-until, delay-id, delay-cancel, "
                                    + "delay-partition"),
                    v.getMessage());
            assertCode(ErrorCode.UNKNOWN_HEADER, reject("delay-target", "t", "delay-ms", "1s", "delay-", "x"));
            assertCode(ErrorCode.UNKNOWN_HEADER, reject("delay-target", "t", "delay-ms", "1s", "delay-Target", "x"));
        }

        @Test
        void provenanceHeadersAreIgnoredEvenWhenRepeatedOrBinary() throws ContractViolation {
            Headers h = headers(
                    "delay-target",
                    "orders",
                    "delay-ms",
                    "5m",
                    "delay-id",
                    "order-42",
                    "delay-due-at",
                    "1795338000000",
                    "delay-due-at",
                    "garbage",
                    "delay-origin",
                    "delay-intake/0/7",
                    "delay-attempt",
                    "3",
                    "delay-error",
                    "DELIVERY_FAILED",
                    "delay-error-message",
                    "broker said no");
            h.add("delay-attempt", new byte[] {(byte) 0xFF});
            IntakeCommand.Schedule s = (IntakeCommand.Schedule) parser.parse(h, TS, DEFAULT_ID);
            assertEquals(new IntakeCommand.Schedule("orders", TS + 300_000, "order-42", true, null), s);
        }

        @Test
        void firstOffendingHeaderInRecordOrderWins() {
            assertCode(
                    ErrorCode.UNKNOWN_HEADER,
                    reject("delay-ms", "1s", "delay-bogus", "x", "delay-ms", "2s", "delay-target", "t"));
            assertCode(
                    ErrorCode.DUPLICATE_HEADER,
                    reject("delay-ms", "1s", "delay-ms", "2s", "delay-bogus", "x", "delay-target", "t"));
            Headers h = headers("delay-target", "t");
            h.add("delay-ms", new byte[] {(byte) 0xFF});
            h.add("delay-bogus", "x".getBytes(UTF_8));
            assertCode(ErrorCode.INVALID_HEADER, reject(h));
        }
    }

    @Nested
    class Order {

        @Test
        void headerLevelBeatsEverythingElse() {
            Headers h = new RecordHeaders();
            h.add("delay-id", new byte[] {(byte) 0xFF});
            assertCode(ErrorCode.INVALID_HEADER, reject(h));
            assertCode(ErrorCode.UNKNOWN_HEADER, reject("delay-msec", "5000"));
            assertCode(ErrorCode.DUPLICATE_HEADER, reject("delay-cancel", "a", "delay-cancel", "", "delay-ms", "1s"));
        }

        @Test
        void cancelBeatsScheduleChecks() {
            assertCode(ErrorCode.INVALID_CANCEL, reject("delay-cancel", "a", "delay-target", "_bad", "delay-ms", "x"));
        }

        @Test
        void targetBeatsDelayBeatsIdBeatsPartition() {
            assertCode(ErrorCode.MISSING_TARGET, reject("delay-ms", "x", "delay-id", "", "delay-partition", "-1"));
            assertCode(
                    ErrorCode.INVALID_TARGET, reject("delay-target", "a b", "delay-id", "", "delay-partition", "-1"));
            assertCode(ErrorCode.TARGET_FORBIDDEN, reject("delay-target", "_x", "delay-ms", "5y"));
            assertCode(ErrorCode.MISSING_DELAY, reject("delay-target", "t", "delay-id", "", "delay-partition", "-1"));
            assertCode(
                    ErrorCode.INVALID_DELAY,
                    reject("delay-target", "t", "delay-ms", "x", "delay-id", "", "delay-partition", "-1"));
            assertCode(
                    ErrorCode.DELAY_TOO_LONG,
                    reject("delay-target", "t", "delay-ms", "999d", "delay-id", "", "delay-partition", "-1"));
            assertCode(
                    ErrorCode.INVALID_ID,
                    reject("delay-target", "t", "delay-ms", "1s", "delay-id", "", "delay-partition", "-1"));
        }
    }

    @Nested
    class Replay {

        @Test
        void deadletterRecordCanBeProducedToTheIntakeAsIs() throws ContractViolation {
            // a record that was deadlettered for a delivery failure: original headers plus what the bridge added
            Headers deadletter = headers(
                    "traceparent",
                    "00-abc-def-01",
                    "delay-target",
                    "orders.timeout",
                    "delay-ms",
                    "30m",
                    "delay-id",
                    "order-42",
                    "delay-error",
                    "DELIVERY_FAILED",
                    "delay-error-message",
                    "delay-target: ...",
                    "delay-origin",
                    "delay-intake/3/1042",
                    "delay-attempt",
                    "5");
            IntakeCommand c = parser.parse(deadletter, TS, "delay-intake-3-2000");
            assertEquals(new IntakeCommand.Schedule("orders.timeout", TS + 1_800_000, "order-42", true, null), c);

            List<Header> passed = new ArrayList<>();
            IntakeParser.userHeaders(deadletter).forEach(passed::add);
            assertEquals(List.of(new RecordHeader("traceparent", "00-abc-def-01".getBytes(UTF_8))), passed);
        }
    }

    @Nested
    class UserHeaders {

        @Test
        void everythingButDelayHeadersPassesInOrder() {
            Headers in = new RecordHeaders();
            in.add("b", "1".getBytes(UTF_8));
            in.add("delay-target", "t".getBytes(UTF_8));
            in.add("a", null);
            in.add("Delay-Ms", "5".getBytes(UTF_8));
            in.add("b", "2".getBytes(UTF_8));
            in.add("delay-origin", "x".getBytes(UTF_8));
            in.add("bin", new byte[] {(byte) 0xFF});

            Header[] out = IntakeParser.userHeaders(in).toArray();
            assertEquals(5, out.length);
            assertEquals(
                    List.of("b", "a", "Delay-Ms", "b", "bin"),
                    java.util.Arrays.stream(out).map(Header::key).toList());
            assertArrayEquals("1".getBytes(UTF_8), out[0].value());
            assertNull(out[1].value());
            assertArrayEquals("2".getBytes(UTF_8), out[3].value());
            assertArrayEquals(new byte[] {(byte) 0xFF}, out[4].value());
        }

        @Test
        void resultIsIndependentOfTheInput() {
            Headers in = headers("a", "1");
            Headers out = IntakeParser.userHeaders(in);
            out.add("b", null);
            assertEquals(1, in.toArray().length);
            assertEquals(0, IntakeParser.userHeaders(null).toArray().length);
        }
    }

    @Test
    void negativeMaximumIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new IntakeParser(POLICY, -1));
    }

    @Test
    void commandsRejectImpossibleValues() {
        assertThrows(IllegalArgumentException.class, () -> new IntakeCommand.Schedule("t", 0, "id", true, -1));
        assertThrows(NullPointerException.class, () -> new IntakeCommand.Schedule(null, 0, "id", true, null));
        assertThrows(NullPointerException.class, () -> new IntakeCommand.Cancel(null));
    }
}
