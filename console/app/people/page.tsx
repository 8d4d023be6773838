import { PeoplePanel } from "../ui/people/people-panel";

/** People screen: who may sign in to the organization's console, with which role. */
export default function PeoplePage() {
  return (
    <>
      <h1>People</h1>
      <PeoplePanel />
    </>
  );
}
