package io.delaybridge.bridge.store.redis;

import io.delaybridge.bridge.store.StoreDataLostException;
import io.delaybridge.bridge.store.StoreException;
import io.delaybridge.bridge.store.StoreFencedException;
import io.delaybridge.bridge.store.WriteResult;

/**
 * The one list of codes the Lua scripts return, and the one place where a failure code becomes an exception.
 *
 * <table>
 *   <caption>codes</caption>
 *   <tr><th>code</th><th>name</th><th>returned by</th></tr>
 *   <tr><td>1</td><td>STORED</td><td>schedule</td></tr>
 *   <tr><td>2</td><td>REPLACED</td><td>schedule</td></tr>
 *   <tr><td>3</td><td>DUPLICATE</td><td>schedule</td></tr>
 *   <tr><td>4</td><td>CANCELLED</td><td>cancel (was pending)</td></tr>
 *   <tr><td>5</td><td>NOT_FOUND</td><td>cancel</td></tr>
 *   <tr><td>6</td><td>CANCELLED_IN_FLIGHT</td><td>cancel (was being delivered; reported as CANCELLED)</td></tr>
 *   <tr><td>9</td><td>ALREADY_CANCELLED</td><td>schedule (a cancel of the id from a newer record was read)</td></tr>
 *   <tr><td>10</td><td>SUPERSEDED</td><td>schedule (the id's stored version comes from a newer record)</td></tr>
 *   <tr><td>11</td><td>MARKED</td><td>mark (the position is stored; with it)</td></tr>
 *   <tr><td>12</td><td>GAP</td><td>mark (the stored position is below the expected one: writes were lost)</td></tr>
 *   <tr><td>-1</td><td>FENCED</td><td>claim, ack, retry, reclaim, hand-back: the caller's epoch is not the shard's</td></tr>
 *   <tr><td>-2</td><td>INVALID_ARGUMENT</td><td>any: a number argument did not parse (a bug in the caller)</td></tr>
 *   <tr><td>-3</td><td>INCARNATION_MISMATCH</td><td>schedule, cancel, mark: the shard lost the data this store wrote</td></tr>
 * </table>
 */
public final class ScriptCodes {

    public static final long STORED = 1;
    public static final long REPLACED = 2;
    public static final long DUPLICATE = 3;
    public static final long CANCELLED = 4;
    public static final long NOT_FOUND = 5;
    public static final long CANCELLED_IN_FLIGHT = 6;
    public static final long ALREADY_CANCELLED = 9;
    public static final long SUPERSEDED = 10;
    public static final long MARKED = 11;
    public static final long GAP = 12;

    public static final long FENCED = -1;
    public static final long INVALID_ARGUMENT = -2;
    public static final long INCARNATION_MISMATCH = -3;

    private ScriptCodes() {}

    /** What a schedule or cancel code means for the intake. Failure codes throw. */
    public static WriteResult writeResult(long code, String operation, int shard, String id) {
        if (code == STORED) {
            return WriteResult.STORED;
        } else if (code == REPLACED) {
            return WriteResult.REPLACED;
        } else if (code == DUPLICATE) {
            return WriteResult.DUPLICATE;
        } else if (code == CANCELLED || code == CANCELLED_IN_FLIGHT) {
            return WriteResult.CANCELLED;
        } else if (code == NOT_FOUND) {
            return WriteResult.NOT_FOUND;
        } else if (code == ALREADY_CANCELLED) {
            return WriteResult.ALREADY_CANCELLED;
        } else if (code == SUPERSEDED) {
            return WriteResult.SUPERSEDED;
        }
        throw failure(code, operation, shard, -1, id);
    }

    /** Returns {@code code} if it is not a failure, else throws the exception it stands for. */
    public static long check(long code, String operation, int shard, long epoch) {
        if (code < 0) {
            throw failure(code, operation, shard, epoch, null);
        }
        return code;
    }

    /** The exception a failure code stands for. */
    public static StoreException failure(long code, String operation, int shard, long epoch, String id) {
        String subject = id == null ? "" : " of message '" + id + "'";
        if (code == FENCED) {
            return new StoreFencedException(shard, epoch, operation);
        } else if (code == INCARNATION_MISMATCH) {
            return new StoreDataLostException(operation + subject + " on shard " + shard + " refused: the shard no"
                    + " longer holds this store's incarnation marker, so Redis lost the data written before (flushed,"
                    + " or restarted without its AOF). Pending messages may be gone. Check Redis persistence"
                    + " (appendonly yes, appendfsync always), decide whether to re-read the intake topic from an"
                    + " earlier offset, then restart the bridge.");
        } else if (code == INVALID_ARGUMENT) {
            return new StoreException(operation + subject + " on shard " + shard
                    + " refused by Redis: a number argument did not parse. This is a bug in the bridge.");
        }
        return new StoreException(operation + subject + " on shard " + shard + " returned unknown code " + code
                + ": the Lua scripts and the bridge do not match. This is a bug in the bridge.");
    }
}
