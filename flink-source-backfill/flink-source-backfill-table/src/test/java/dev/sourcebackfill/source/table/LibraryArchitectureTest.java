/*
 * Copyright 2026 the flink-source-backfill authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.sourcebackfill.source.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The library's architecture, checked on the production classes of every module (this module sees
 * them all): the core depends on no adapter, each adapter only on the ones it declares, every
 * top-level class says whether it is user API, and the user API's signatures name no internal type.
 */
class LibraryArchitectureTest {

    private static final String ROOT = "dev.sourcebackfill.source";
    private static final String KAFKA = ROOT + ".kafka..";
    private static final String ARCHIVE = ROOT + ".archive..";
    private static final String TABLE = ROOT + ".table..";
    private static final String DATAGEN = ROOT + ".datagen..";
    private static final String ICEBERG = ROOT + ".iceberg..";

    private static final JavaClasses LIBRARY =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    // the modules' test jars (the Kafka module's broker, the tests' harness)
                    .withImportOption(location -> !location.contains("-tests.jar"))
                    .importPackages(ROOT);

    @Test
    void theLibraryIsImportedWhole() {
        // a rule over no classes would pass: every module's classes must be there
        for (String pkg :
                Set.of(
                        ROOT + ".reader",
                        ROOT + ".kafka",
                        ROOT + ".archive",
                        ROOT + ".table",
                        ROOT + ".datagen",
                        ROOT + ".iceberg")) {
            org.assertj.core.api.Assertions.assertThat(LIBRARY.containPackage(pkg))
                    .as(pkg)
                    .isTrue();
        }
    }

    @Test
    void theCoreDependsOnNoAdapter() {
        noClasses()
                .that()
                .resideInAPackage(ROOT + "..")
                .and()
                .resideOutsideOfPackages(KAFKA, ARCHIVE, TABLE, DATAGEN, ICEBERG)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(KAFKA, ARCHIVE, TABLE, DATAGEN, ICEBERG)
                .check(LIBRARY);
    }

    /**
     * The table module has the Iceberg module as an optional dependency: only the class behind the
     * {@code backfill.iceberg.*} options (and its nested classes) and the row mapper it builds may
     * touch Iceberg or the module, so that a table without those options never loads them.
     */
    @Test
    void onlyTheIcebergOptionsOfTheTableConnectorUseIceberg() {
        noClasses()
                .that()
                .resideInAPackage(TABLE)
                .and()
                .doNotHaveFullyQualifiedName(IcebergTableOptions.class.getName())
                .and()
                .doNotHaveFullyQualifiedName(IcebergColumnsMapper.class.getName())
                .and()
                .areNotNestedClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ICEBERG, "org.apache.iceberg..")
                .check(LIBRARY);
        noClasses()
                .that()
                .resideInAPackage(TABLE)
                .and()
                .areNestedClasses()
                .and()
                .haveNameNotMatching(
                        java.util.regex.Pattern.quote(IcebergTableOptions.class.getName())
                                + "\\$.*")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ICEBERG, "org.apache.iceberg..")
                .check(LIBRARY);
        // the row mapper loads the Iceberg module: only the options class builds it
        noClasses()
                .that()
                .resideInAPackage(TABLE)
                .and()
                .doNotHaveFullyQualifiedName(IcebergTableOptions.class.getName())
                .and()
                .haveNameNotMatching(
                        java.util.regex.Pattern.quote(IcebergTableOptions.class.getName())
                                + "\\$.*")
                .and()
                .doNotHaveFullyQualifiedName(IcebergColumnsMapper.class.getName())
                .should()
                .dependOnClassesThat()
                .haveFullyQualifiedName(IcebergColumnsMapper.class.getName())
                .check(LIBRARY);
    }

    @Test
    void eachAdapterDependsOnlyOnTheAdaptersItDeclares() {
        check(
                noClasses()
                        .that()
                        .resideInAPackage(KAFKA)
                        .should()
                        .dependOnClassesThat()
                        .resideInAnyPackage(ARCHIVE, TABLE, DATAGEN, ICEBERG));
        check(
                noClasses()
                        .that()
                        .resideInAPackage(ARCHIVE)
                        .should()
                        .dependOnClassesThat()
                        .resideInAnyPackage(TABLE, DATAGEN, ICEBERG));
        check(
                noClasses()
                        .that()
                        .resideInAPackage(ICEBERG)
                        .should()
                        .dependOnClassesThat()
                        .resideInAnyPackage(ARCHIVE, TABLE, DATAGEN));
        check(
                noClasses()
                        .that()
                        .resideInAPackage(DATAGEN)
                        .should()
                        .dependOnClassesThat()
                        .resideInAnyPackage(KAFKA, ARCHIVE, TABLE, ICEBERG));
        check(
                noClasses()
                        .that()
                        .resideInAPackage(TABLE)
                        .should()
                        .dependOnClassesThat()
                        .resideInAnyPackage(DATAGEN));
    }

    @Test
    void everyTopLevelClassIsAnnotatedAsUserApiOrInternal() {
        classes()
                .that()
                .areTopLevelClasses()
                .and()
                .doNotHaveSimpleName("package-info")
                .should()
                .beAnnotatedWith(PublicEvolving.class)
                .orShould()
                .beAnnotatedWith(Internal.class)
                .check(LIBRARY);
    }

    @Test
    void theUserApiNamesNoInternalTypeInItsSignatures() {
        codeUnits()
                .that()
                .areDeclaredInClassesThat()
                .areAnnotatedWith(PublicEvolving.class)
                .and()
                .arePublic()
                .and(notInternal())
                .should(nameNoInternalType())
                .check(LIBRARY);
    }

    private static void check(ArchRule rule) {
        rule.check(LIBRARY);
    }

    /**
     * Exempt: a public member of user API that is itself marked internal (a test hook), and one
     * that implements a method of Flink's own interfaces (the {@code Source} methods Flink calls
     * with the checkpoint state, as Flink's {@code KafkaSource} has them).
     */
    private static DescribedPredicate<JavaCodeUnit> notInternal() {
        return DescribedPredicate.describe(
                "are not annotated @Internal and implement no method of Flink's",
                unit ->
                        !unit.isAnnotatedWith(Internal.class)
                                && !unit.getModifiers().contains(JavaModifier.SYNTHETIC)
                                && !implementsFlinkMethod(unit));
    }

    private static boolean implementsFlinkMethod(JavaCodeUnit unit) {
        JavaClass owner = unit.getOwner();
        Set<JavaClass> supertypes = new HashSet<>(owner.getAllRawInterfaces());
        supertypes.addAll(owner.getAllRawSuperclasses());
        return supertypes.stream()
                .filter(t -> t.getPackageName().startsWith("org.apache.flink"))
                .flatMap(t -> t.getMethods().stream())
                .anyMatch(
                        m ->
                                m.getName().equals(unit.getName())
                                        && m.getRawParameterTypes().size()
                                                == unit.getRawParameterTypes().size());
    }

    private static ArchCondition<JavaCodeUnit> nameNoInternalType() {
        return new ArchCondition<>("name no @Internal type in their signature") {
            @Override
            public void check(JavaCodeUnit unit, ConditionEvents events) {
                Set<JavaClass> named =
                        new HashSet<>(
                                unit.getParameterTypes().stream().map(t -> t.toErasure()).toList());
                named.add(unit.getRawReturnType());
                for (JavaClass type : named) {
                    JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
                    if (base.isAnnotatedWith(Internal.class)) {
                        events.add(
                                SimpleConditionEvent.violated(
                                        unit,
                                        unit.getFullName() + " names @Internal " + base.getName()));
                    }
                }
            }
        };
    }
}
