import { ActivityCharts } from "../ui/activity/activity-charts";

/** Activity screen: balance, issuance and webhook delivery trends. */
export default function ActivityPage() {
  return (
    <>
      <h1>Activity</h1>
      <ActivityCharts />
    </>
  );
}
