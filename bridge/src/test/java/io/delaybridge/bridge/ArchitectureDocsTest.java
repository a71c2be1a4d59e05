package io.delaybridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md holds the one list of the service's classes per package: every top-level class of
 * {@code bridge/src/main} is named there, so the list cannot fall behind the code unnoticed.
 */
class ArchitectureDocsTest {

    @Test
    void everyClassOfTheServiceIsNamedInTheArchitecture() throws IOException {
        String docs = Files.readString(Path.of("../docs/architecture.md"));
        List<String> missing = new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.delaybridge.bridge")
                        .stream()
                        .filter(JavaClass::isTopLevelClass)
                        .map(JavaClass::getSimpleName)
                        .filter(name ->
                                !Pattern.compile("`" + name + "`").matcher(docs).find())
                        .sorted()
                        .toList();
        assertEquals(List.of(), missing, "name each class in docs/architecture.md, \"Code layout\", in its package");
    }
}
