package io.delaybridge.bridge.admin;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.UniformReservoir;

/** A millisecond histogram read in seconds, for the Prometheus export ({@link PrometheusExport#inSeconds}). */
final class SecondsHistogram extends Histogram {
    private final Histogram millis;

    SecondsHistogram(Histogram millis) {
        super(new UniformReservoir(1));
        this.millis = millis;
    }

    @Override
    public void update(long value) {
        throw new UnsupportedOperationException("a read-only view");
    }

    @Override
    public long getCount() {
        return millis.getCount();
    }

    @Override
    public Snapshot getSnapshot() {
        Snapshot s = millis.getSnapshot();
        return new Snapshot() {
            @Override
            public double getValue(double quantile) {
                return s.getValue(quantile) / 1000.0;
            }

            @Override
            public long[] getValues() {
                return s.getValues();
            }

            @Override
            public int size() {
                return s.size();
            }

            @Override
            public long getMax() {
                return s.getMax() / 1000;
            }

            @Override
            public double getMean() {
                return s.getMean() / 1000.0;
            }

            @Override
            public long getMin() {
                return s.getMin() / 1000;
            }

            @Override
            public double getStdDev() {
                return s.getStdDev() / 1000.0;
            }

            @Override
            public void dump(java.io.OutputStream output) {
                s.dump(output);
            }
        };
    }
}
