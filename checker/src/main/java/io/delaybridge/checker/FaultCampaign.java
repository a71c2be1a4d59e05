package io.delaybridge.checker;

/**
 * The fault campaign's command line: {@code ./campaign.sh --records 1000000 --faults full} (see README.md, section
 * Fault campaign, and {@link CampaignOptions} for every option). Prints the report; exits 0 if every guarantee
 * held, 1 if one was violated, 2 on a bad option.
 */
public final class FaultCampaign {

    private FaultCampaign() {}

    public static void main(String[] args) throws Exception {
        CampaignOptions options;
        try {
            options = CampaignOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        CampaignReport report = new Campaign(options).run();
        System.out.print(report.render());
        System.exit(report.passed() ? 0 : 1);
    }
}
