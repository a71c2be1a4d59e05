package io.delaybridge.bridge;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/** Start-up steps that run side by side: one on a thread of its own while {@code run} goes on with the next. */
final class StartupSteps {

    private StartupSteps() {}

    /** Runs {@code step} on a new daemon thread named {@code name}. */
    static <T> CompletableFuture<T> inBackground(String name, Supplier<T> step) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        result.complete(step.get());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                },
                name);
        thread.setDaemon(true);
        thread.start();
        return result;
    }

    /** The step's result; its exception is thrown as it was thrown, so a start-up error reads the same. */
    static <T> T await(CompletableFuture<T> step) {
        try {
            return step.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }
}
